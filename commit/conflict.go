package commit

import (
	"context"
	"fmt"
	"slices"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// checkConflicts is Java's ConflictDetection.checkConflicts for a commit
// whose delta deletes files (compaction, row-level changes): base is the
// latest snapshot's manifest list (base then delta manifests), index the
// part's index changes (see checkIndexConflicts). The bucket count check is
// skipped for OVERWRITE commits, which may change it (Java
// checkBucketKeepSame). levels are the LevelsView of a COMPACT part's
// messages (levelOrder). Errors wrap ErrConflict.
func (c *Committer) checkConflicts(ctx context.Context, base []manifest.FileMeta, delta []manifest.Entry, index []manifest.IndexManifestEntry, kind snapshot.CommitKind, levels map[bucketKey]*LevelsView) error {
	parts := map[string][]byte{}
	for _, e := range delta {
		parts[string(e.Partition)] = e.Partition
	}
	for _, e := range index {
		if e.Kind == manifest.Add && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors {
			parts[string(e.Partition)] = e.Partition
		}
	}
	live, err := c.liveFiles(ctx, base, parts)
	if err != nil {
		return err
	}

	// Total buckets must agree within a partition.
	buckets := map[string]int32{}
	groups := [][]manifest.Entry{live, delta}
	if kind == snapshot.KindOverwrite {
		groups = nil
	}
	for _, group := range groups {
		for _, e := range group {
			if e.TotalBuckets <= 0 {
				continue
			}
			if tb, ok := buckets[string(e.Partition)]; ok && tb != e.TotalBuckets {
				return fmt.Errorf("%w: total buckets of partition %x changed from %d to %d without overwrite",
					ErrConflict, e.Partition, tb, e.TotalBuckets)
			}
			buckets[string(e.Partition)] = e.TotalBuckets
		}
	}

	// The delta must not add and delete the same file; its deletions must
	// find their file among the live ones.
	files := make(map[string]manifest.Entry, len(live))
	for _, e := range live {
		files[e.Identifier()] = e
	}
	added := map[string]bool{}
	for _, e := range delta {
		if e.Kind == manifest.Add {
			added[e.Identifier()] = true
		}
	}
	for _, e := range delta {
		if e.Kind != manifest.Delete {
			continue
		}
		id := e.Identifier()
		if added[id] {
			return fmt.Errorf("%w: file %s is added and deleted by the same commit", ErrConflict, e.File.FileName)
		}
		if _, ok := files[id]; !ok {
			return fmt.Errorf("%w: file deletion conflicts detected: %s (bucket %d, level %d) was deleted by another commit",
				ErrConflict, e.File.FileName, e.Bucket, e.File.Level)
		}
		delete(files, id)
	}
	for _, e := range delta {
		if e.Kind == manifest.Add {
			files[e.Identifier()] = e
		}
	}
	if err := checkIndexConflicts(files, index); err != nil {
		return err
	}
	if len(c.ts.PrimaryKeys) > 0 {
		keyTypes := row.FieldTypes(c.ts.TrimmedPrimaryKeyFields())
		if kind == snapshot.KindCompact {
			whole, err := wholeHistory(c.ts.Options)
			if err != nil {
				return err
			}
			o := levelOrder{keyTypes: keyTypes, views: levels, wholeHistory: whole}
			if err := o.check(live, delta); err != nil {
				return err
			}
		}
		return checkLSM(files, keyTypes)
	}
	return nil
}

// liveFiles returns the live files (netted entries) of base, a snapshot's
// manifest list (base then delta manifests), in the partitions parts
// (serialized partition -> itself). Manifests whose partition statistics
// exclude every partition of parts are not read; the live files of the
// base this Committer published last come from c.live (liveIndex) once
// computed.
func (c *Committer) liveFiles(ctx context.Context, base []manifest.FileMeta, parts map[string][]byte) ([]manifest.Entry, error) {
	if live, ok := c.live.get(base, parts); ok {
		return live, nil
	}
	partFields := c.ts.PartitionFields()
	var read []manifest.FileMeta
	for _, m := range base {
		if mayContainPartitions(m, partFields, parts) {
			read = append(read, m)
		}
	}
	lists, err := c.mw.readManifests(ctx, read)
	if err != nil {
		return nil, err
	}
	var all []manifest.Entry
	for _, es := range lists {
		for _, e := range es {
			if _, ok := parts[string(e.Partition)]; ok {
				all = append(all, e)
			}
		}
	}
	live, err := manifest.Net(all)
	if err != nil {
		return nil, fmt.Errorf("commit: base files of the latest snapshot: %w", err)
	}
	c.live.set(base, parts, live)
	return live, nil
}

// checkLSM is PrimaryKeyConflictDetection: on every level >= 1 of every
// partition-bucket the files' key ranges must not overlap.
func checkLSM(files map[string]manifest.Entry, keyTypes []types.DataType) error {
	type runKey struct {
		part   string
		bucket int32
		level  int32
	}
	type keyed struct {
		e        manifest.Entry
		min, max []any
	}
	runs := map[runKey][]keyed{}
	for _, e := range files {
		if e.File.Level < 1 {
			continue
		}
		minK, err := decodeKey(e.File.MinKey, keyTypes)
		if err != nil {
			return fmt.Errorf("commit: min key of %s: %w", e.File.FileName, err)
		}
		maxK, err := decodeKey(e.File.MaxKey, keyTypes)
		if err != nil {
			return fmt.Errorf("commit: max key of %s: %w", e.File.FileName, err)
		}
		k := runKey{string(e.Partition), e.Bucket, e.File.Level}
		runs[k] = append(runs[k], keyed{e, minK, maxK})
	}
	cmpKey := func(a, b []any) int {
		for i, t := range keyTypes {
			if c := types.Compare(t, a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	for k, fs := range runs {
		slices.SortFunc(fs, func(a, b keyed) int { return cmpKey(a.min, b.min) })
		for i := 1; i < len(fs); i++ {
			if cmpKey(fs[i-1].max, fs[i].min) >= 0 {
				return fmt.Errorf("%w: LSM conflicts detected: files %s and %s overlap on level %d of bucket %d",
					ErrConflict, fs[i-1].e.File.FileName, fs[i].e.File.FileName, k.level, k.bucket)
			}
		}
	}
	return nil
}

func decodeKey(b []byte, keyTypes []types.DataType) ([]any, error) {
	r, err := row.Deserialize(b)
	if err != nil {
		return nil, err
	}
	return row.Decode(keyTypes, r)
}
