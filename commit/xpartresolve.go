package commit

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/snapshot"
)

// claim is the placement another writer committed first for a key the
// part writes elsewhere, with the file that holds it there.
type claim struct {
	pl   placement
	snap int64
	file manifest.Entry
}

// resolve settles, for partial-update, aggregation and first-row tables,
// the keys of the part's new files (entries; ours maps their keys to the
// partition-buckets the part writes them to, low gives the part's lowest
// sequence number per partition-bucket) that the foreign snapshots (in id
// order, after from) added in another partition-bucket. The first such
// placement wins, as it would have with one key index taking the commits
// in commit order (Java GlobalIndexAssigner): partial-update and
// aggregation move the part's rows of the key there (Java
// UseOldExistingProcessor: the rows take that partition's values and
// sequence numbers re-based to the destination's, which the sequence guard
// then orders after its live rows); first-row drops them (Java
// SkipNewExistingProcessor: the first row committed stays). The part's
// files holding such keys are replaced by copies without them (package
// resequence, Rewriter.Relocate); a file left empty is dropped. A level-0
// file is expected; a file of another level holding such a key fails with
// ErrKeyIndexStale (wrapping ErrConflict), as an expired snapshot in the
// range does (apply). On error nothing written is left behind.
func (g *xpartGuard) resolve(ctx context.Context, c *Committer, foreign []*snapshot.Snapshot, from int64, entries []manifest.Entry, ours map[string][]placement, low map[placement]int64) (out retracted, err error) {
	out = retracted{entries: entries}
	vals := make([]any, len(g.keyTypes))
	dest := map[string]claim{}
	for _, s := range foreign {
		files, err := g.foreignFiles(ctx, c, s, vals)
		if err != nil {
			return out, err
		}
		for _, ff := range files {
			pl := placement{string(ff.entry.Partition), ff.entry.Bucket}
			check := func(k string) {
				at, ok := ours[k]
				if !ok || !ff.keys[k] || slices.Contains(at, pl) {
					return
				}
				if _, ok := dest[k]; !ok {
					dest[k] = claim{pl: pl, snap: s.ID, file: ff.entry}
				}
			}
			if len(ours) < len(ff.keys) {
				for k := range ours {
					check(k)
				}
			} else {
				for k := range ff.keys {
					check(k)
				}
			}
		}
	}
	if len(dest) == 0 {
		return out, nil
	}
	src := map[placement]bool{}
	valueFile := map[string]manifest.Entry{} // a file of each destination partition
	for k, cl := range dest {
		for _, pl := range ours[k] {
			src[pl] = true
		}
		if _, ok := valueFile[cl.pl.part]; !ok {
			valueFile[cl.pl.part] = cl.file
		}
	}
	partVals := map[string][]arrow.Array{}
	defer func() {
		for _, vs := range partVals {
			for _, v := range vs {
				v.Release()
			}
		}
	}()
	values := func(part string) ([]arrow.Array, error) {
		if v, ok := partVals[part]; ok {
			return v, nil
		}
		e, ok := valueFile[part]
		if !ok {
			return nil, fmt.Errorf("commit: no file of partition %x", part)
		}
		v, err := c.seq.rw.PartitionValues(ctx, e.Partition, e.Bucket, e.File)
		if err != nil {
			return nil, err
		}
		partVals[part] = v
		return v, nil
	}
	defer func() {
		if err != nil {
			c.seq.discard(ctx, c, out.copies)
			out = retracted{entries: entries}
		}
	}()
	next := make([]manifest.Entry, 0, len(entries))
	reports := map[placement]*Resequenced{}
	var order []placement
	for _, e := range entries {
		home := placement{string(e.Partition), e.Bucket}
		if e.Kind != manifest.Add || !src[home] {
			next = append(next, e)
			continue
		}
		place := func(keys []arrow.Array, i int) (resequence.Place, error) {
			k, err := keyindex.Key(keys, g.keyTypes, i, vals)
			if err != nil {
				return resequence.Place{}, err
			}
			cl, ok := dest[string(k)]
			switch {
			case !ok:
				return resequence.Place{Partition: home.part, Bucket: home.bucket}, nil
			case e.File.Level != 0:
				return resequence.Place{}, fmt.Errorf("%w: %w: key %s: snapshot %d of another writer wrote it to %s after this writer's key index (snapshot %d); this commit writes it to %s in the level-%d file %s, which cannot be rewritten",
					ErrConflict, ErrKeyIndexStale, g.keyString(k), cl.snap, g.where(c, cl.pl), from, g.where(c, home), e.File.Level, e.File.FileName)
			case g.firstRow:
				return resequence.Place{Drop: true}, nil
			default:
				return resequence.Place{Partition: cl.pl.part, Bucket: cl.pl.bucket}, nil
			}
		}
		shift := func(d resequence.Place) int64 {
			return low[placement{d.Partition, d.Bucket}] - low[home]
		}
		res, err := c.seq.rw.Relocate(ctx, e.Partition, e.Bucket, e.File, place, values, shift)
		if err != nil {
			return out, fmt.Errorf("commit: move keys another writer put in other partitions: %w", err)
		}
		if res == nil {
			next = append(next, e)
			continue
		}
		homePlace := resequence.Place{Partition: home.part, Bucket: home.bucket}
		var places []resequence.Place
		for p := range res {
			if p != homePlace {
				places = append(places, p)
			}
		}
		slices.SortFunc(places, func(a, b resequence.Place) int {
			if a.Partition != b.Partition {
				if a.Partition < b.Partition {
					return -1
				}
				return 1
			}
			return int(a.Bucket) - int(b.Bucket)
		})
		if _, ok := res[homePlace]; ok {
			places = append([]resequence.Place{homePlace}, places...)
		}
		for _, p := range places {
			dir, err := c.seq.rw.BucketDir([]byte(p.Partition), p.Bucket)
			if err != nil {
				return out, err
			}
			for _, f := range res[p] {
				out.copies = append(out.copies, copyPaths(dir, f)...)
				ne := e
				ne.Partition, ne.Bucket, ne.File = []byte(p.Partition), p.Bucket, f
				next = append(next, ne)
			}
		}
		r := reports[home]
		if r == nil {
			r = &Resequenced{Partition: e.Partition, Bucket: e.Bucket, Files: map[string][]manifest.DataFileMeta{}}
			reports[home] = r
			order = append(order, home)
		}
		r.Files[e.File.FileName] = res[homePlace]
	}
	if len(reports) == 0 {
		return out, nil
	}
	out.entries, out.changed = next, true
	for _, pl := range order {
		out.moved = append(out.moved, *reports[pl])
	}
	return out, nil
}
