package realtime

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/reader"
)

// offerFlushed offers the rows of a data file the context's flush wrote to
// its lookup cache once lookups run (the warming after the commit then
// reads them instead of the file); datafile.RowsHook.Fn.
func (c *Context) offerFlushed(path string, rows []arrow.RecordBatch) {
	if c.lookupScan.Load() != nil {
		c.cache.LookupFiles().Offer(c.fio, path, rows)
	}
}

// warmLookups readies the context's lookups for snapshot id, a commit of
// msgs that was published but that the context does not know of yet
// (Commit calls it before Context.published): it plans snapshot id for the
// lookups' scan (Scan.diskPlanAt: without looking for the latest
// snapshot, and reading none of the manifest files the context's committer
// wrote, which it offered to the context's cache) and, in one lookup,
// looks up the smallest key of each new level-0 file of the commit, so
// that the lookup cache holds those files decoded and the plan's memo
// their key statistics. Lookups after it then find the new snapshot
// planned and its files in memory; until then they keep the last plan,
// whose rows memory still holds. It is best effort: a failure leaves the
// work to the next lookup.
func (c *Context) warmLookups(ctx context.Context, id int64, msgs []commit.Message) {
	s := c.lookupScan.Load()
	if s == nil || c.cache.LookupFiles().Stats().MaxBytes <= 0 {
		return
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for i := range msgs {
		// The flushed files only: compaction outputs can be large, and
		// decoding one here would hold up the commit for what the first
		// lookup reading it pays once anyway.
		if m := &msgs[i]; len(m.Data.NewFiles) > 0 {
			keys, err := reader.FileKeys(c.ts, m.Partition, m.Data.NewFiles)
			if err != nil {
				return
			}
			batches = append(batches, keys)
		}
	}
	if len(batches) == 0 {
		return
	}
	if _, err := s.diskPlanAt(ctx, id); err != nil {
		return
	}
	keys, err := reader.Concat(func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range batches {
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
	}, batches[0].Schema(), nil)
	if err != nil {
		return
	}
	defer keys.Release()
	if rec, err := c.Lookup(ctx, keys); err == nil {
		rec.Release()
	}
}
