package realtime

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
)

// offerFileBytes bounds the rows (datafile.RecordSize) of one data file
// that a real-time writer holds while writing it, to offer them to the
// lookup cache (offerWritten): 16 MiB, above a flush of 100 ms of a fast
// stream, below most full compactions' outputs, which are then read back
// by the first lookup needing them.
const offerFileBytes = 16 << 20

// offerWritten offers the rows of a data file the context's writers wrote
// (flushes and their compactions) to its lookup cache once lookups run;
// the warming after the commit then reads them instead of the file
// (datafile.RowsHook.Fn).
func (c *Context) offerWritten(path string, rows []arrow.RecordBatch) {
	if c.lookupScan.Load() != nil {
		c.cache.LookupFiles().Offer(c.fio, path, rows)
	}
}

// warmLookups readies the context's lookups for snapshot id, a commit of
// msgs that was published but that the context does not know of yet
// (Commit calls it before Context.published): it plans snapshot id for the
// lookups' scan (Scan.diskPlanAt: without looking for the latest
// snapshot, and reading none of the manifest files the context's committer
// wrote, which it offered to the context's cache) and reads the commit's
// new files (level-0 files and compaction outputs) into the lookup cache
// through that plan (reader.Plan.Prefetch), as a lookup of the snapshot
// reads them; the writers offered the rows of the files they wrote
// (offerWritten), so those up to offerFileBytes are not decoded. Lookups
// after it then find the new snapshot planned and its files in memory;
// until then they keep the last plan, whose rows memory still holds. It
// is best effort: a failure leaves the work to the next lookup.
func (c *Context) warmLookups(ctx context.Context, id int64, msgs []commit.Message) {
	s := c.lookupScan.Load()
	if s == nil || c.cache.LookupFiles().Stats().MaxBytes <= 0 {
		return
	}
	// Compaction outputs too: a lookup of their bucket would otherwise
	// decode them while its caller waits (Compact.After also names files
	// only moved up a level, which the cache holds already).
	if !slices.ContainsFunc(msgs, func(m commit.Message) bool { return len(m.Data.NewFiles)+len(m.Compact.After) > 0 }) {
		return
	}
	dp, err := s.diskPlanAt(ctx, id)
	if err != nil {
		return
	}
	for i := range msgs {
		m := &msgs[i]
		if files := slices.Concat(m.Data.NewFiles, m.Compact.After); len(files) > 0 {
			if err := dp.rp.Prefetch(ctx, m.Partition, m.Bucket, files); err != nil {
				return
			}
		}
	}
}
