package expire

import "time"

// SetBeforeDelete makes Expire call f before each deletion; an error from f
// stops the run as a crash would.
func SetBeforeDelete(o *Options, f func(path string) error) { o.beforeDelete = f }

// SetRollbackBeforeDelete is SetBeforeDelete for Rollback.
func SetRollbackBeforeDelete(o *RollbackOptions, f func(path string) error) { o.beforeDelete = f }

// SetNow makes Expire judge the age of snapshots below EARLIEST at now().
func SetNow(o *Options, now func() time.Time) { o.now = now }
