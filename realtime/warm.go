package realtime

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/reader"
)

// warmLookups readies the context's lookups for snapshot id, a commit of
// msgs that was published but that the context does not know of yet
// (Commit calls it before Context.published): it plans snapshot id for the
// lookups' scan (Scan.diskPlanAt: without looking for the latest snapshot,
// and reading none of the manifest files the context's committer wrote,
// which it offered to the context's cache) and, in one lookup, looks up the
// smallest key of each new level-0 file of the commit (the rows it
// flushed) in the partition-buckets that lookups use (the lookup cache
// holds a file of them: reader.Plan.LookupCached), so that the lookup
// cache holds those files decoded. Partition-buckets no lookup read are
// left to their first lookup, as Java's LookupLevels loads a file on its
// first lookup: a commit to a table of 256 buckets touches them all, and
// looking one key up in each merged every bucket before Commit returned.
// Lookups after it then find the new snapshot planned and its files in
// memory instead of decoding a file each (0.5–1.2 ms for a 30,000-row file
// of flights); until then they keep the last plan, whose rows memory
// still holds. Contexts whose lookups never ran skip it. It is best
// effort: a failure leaves the work to the next lookup.
func (c *Context) warmLookups(ctx context.Context, id int64, msgs []commit.Message) {
	s := c.lookupScan.Load()
	if s == nil || c.cache.LookupFiles().Stats().MaxBytes <= 0 {
		return
	}
	if !slices.ContainsFunc(msgs, func(m commit.Message) bool { return len(m.Data.NewFiles) > 0 }) {
		return
	}
	dp, err := s.diskPlanAt(ctx, id)
	if err != nil {
		return
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for i := range msgs {
		m := &msgs[i]
		if len(m.Data.NewFiles) == 0 || !dp.rp.LookupCached(m.Partition, m.Bucket) {
			continue
		}
		keys, err := reader.FileKeys(c.ts, m.Partition, m.Data.NewFiles)
		if err != nil {
			return
		}
		batches = append(batches, keys)
	}
	if len(batches) == 0 {
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
