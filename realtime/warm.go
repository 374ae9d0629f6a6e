package realtime

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/reader"
)

// prefetchLookups readies the context's lookups for a commit of msgs that
// is about to be published. Beside the commit, it reads the new level-0
// files of msgs (the rows they flushed; not compaction outputs, which can
// be large and which the first lookup reading them pays for once anyway)
// into the lookup cache through the lookups' kept disk plan
// (reader.Plan.Prefetch): the files exist once the writers prepared them,
// so decoding them (0.5–1.2 ms for a 30,000-row file of flights) overlaps
// the committer's requests instead of following them. The returned func,
// which Commit calls once the commit ended, waits for those reads and,
// given the id of the published snapshot (0: none), warms the lookups for
// it (warmLookups). Contexts whose lookups never ran, or whose lookup cache
// is off, read nothing. It is best effort: a failed read leaves the file
// to the first lookup that needs it.
func (c *Context) prefetchLookups(ctx context.Context, msgs []commit.Message) (warm func(id int64)) {
	s := c.lookupScan.Load()
	if s == nil || c.cache.LookupFiles().Stats().MaxBytes <= 0 {
		return func(int64) {}
	}
	var todo []*commit.Message
	for i := range msgs {
		if len(msgs[i].Data.NewFiles) > 0 {
			todo = append(todo, &msgs[i])
		}
	}
	if len(todo) == 0 {
		return func(int64) {}
	}
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if last == nil {
			return
		}
		for _, m := range todo {
			if err := last.rp.Prefetch(ctx, m.Partition, m.Bucket, m.Data.NewFiles); err != nil {
				return
			}
		}
	}()
	return func(id int64) {
		<-done
		if id > 0 {
			c.warmLookups(ctx, s, id, msgs)
		}
	}
}

// warmLookups readies the context's lookups for snapshot id, a commit of
// msgs that was published but that the context does not know of yet
// (Commit calls it before Context.published): it plans snapshot id for the
// lookups' scan s (Scan.diskPlanAt: without looking for the latest
// snapshot, and reading none of the manifest files the context's committer
// wrote, which it offered to the context's cache) and, in one lookup,
// looks up the smallest key of each new level-0 file of the commit, so
// that the lookup cache holds those files decoded (prefetchLookups read
// them already unless the lookups had no plan yet) and the plan's memo
// their key statistics. Lookups after it then find the new snapshot
// planned and its files in memory; until then they keep the last plan,
// whose rows memory still holds. It is best effort: a failure leaves the
// work to the next lookup.
func (c *Context) warmLookups(ctx context.Context, s *Scan, id int64, msgs []commit.Message) {
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
