package orphan

import "context"

// SetAfterList makes Clean call f after it listed the snapshots, tags and
// changelogs of the table (pass counts from 1) and before it reads them; an
// error from f ends the run with that error.
func SetAfterList(o *Options, f func(ctx context.Context, pass int) error) { o.afterList = f }
