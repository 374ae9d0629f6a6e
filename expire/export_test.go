package expire

// SetBeforeDelete makes Expire call f before each deletion; an error from f
// stops the run as a crash would.
func SetBeforeDelete(o *Options, f func(path string) error) { o.beforeDelete = f }

// SetRollbackBeforeDelete is SetBeforeDelete for Rollback.
func SetRollbackBeforeDelete(o *RollbackOptions, f func(path string) error) { o.beforeDelete = f }
