package commit

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// ErrKeyIndexStale: an APPEND commit to a cross-partition upsert table puts
// a key into a partition-bucket while another writer, in a snapshot
// committed after the writer's key index was bootstrapped
// (Message.KeyIndexFrom), put the same key into another partition-bucket.
// Publishing both would keep the key twice. It wraps ErrConflict; nothing
// is published. The writer must bootstrap its key index anew
// (writer.Write.Restore) and write its rows again. The message names the
// key, both partition-buckets and the other writer's file and snapshot.
var ErrKeyIndexStale = errors.New("commit: cross-partition key index is stale")

// xpartGuard refuses APPEND commits of cross-partition upsert tables whose
// keys another writer placed elsewhere meanwhile (see the package
// documentation, Cross-partition upserts across writers). Java assumes one
// key index per table (one GlobalIndexAssigner) and has no counterpart.
type xpartGuard struct {
	keyTypes []types.DataType // trimmed primary key
}

// placement is one partition-bucket of a key.
type placement struct {
	part   string
	bucket int32
}

// check compares the keys of the part's new files (entries) with those that
// other commit users added in the snapshots after from up to base, skipping
// COMPACT snapshots (compaction keeps every key in its partition-bucket).
// A key the part adds that such a snapshot added in a partition-bucket the
// part does not write it to fails with ErrKeyIndexStale; an expired
// snapshot in the range fails too (its additions are unknown).
func (g *xpartGuard) check(ctx context.Context, c *Committer, base *snapshot.Snapshot, from int64, entries []manifest.Entry) error {
	var foreign []*snapshot.Snapshot
	for id := max(from, 0) + 1; id <= base.ID; id++ {
		s := base
		if id != base.ID {
			var err error
			if s, err = c.snaps.Get(ctx, id); err != nil {
				if errors.Is(err, snapshot.ErrNotFound) {
					return fmt.Errorf("%w: %w: snapshot %d, committed after the writer's key index (snapshot %d), has expired", ErrConflict, ErrKeyIndexStale, id, from)
				}
				return fmt.Errorf("commit: cross-partition keys of snapshot %d: %w", id, err)
			}
		}
		if s.CommitUser != c.commitUser && s.CommitKind != snapshot.KindCompact {
			foreign = append(foreign, s)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	ours := map[string][]placement{}
	vals := make([]any, len(g.keyTypes))
	for _, e := range entries {
		if e.Kind != manifest.Add {
			continue
		}
		pl := placement{string(e.Partition), e.Bucket}
		err := c.seq.rw.Keys(ctx, e.Partition, e.Bucket, e.File, func(keys []arrow.Array, n int) error {
			for i := range n {
				k, err := keyindex.Key(keys, g.keyTypes, i, vals)
				if err != nil {
					return fmt.Errorf("commit: key of %s: %w", e.File.FileName, err)
				}
				if !slices.Contains(ours[string(k)], pl) {
					ours[string(k)] = append(ours[string(k)], pl)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(ours) == 0 {
		return nil
	}
	for _, s := range foreign {
		metas, err := manifest.ReadManifestList(ctx, c.fio, s.DeltaManifestList)
		if err != nil {
			return fmt.Errorf("commit: cross-partition keys of snapshot %d: %w", s.ID, err)
		}
		for _, m := range metas {
			es, err := manifest.ReadManifest(ctx, c.fio, m.FileName)
			if err != nil {
				return fmt.Errorf("commit: cross-partition keys of snapshot %d: %w", s.ID, err)
			}
			for _, e := range es {
				if e.Kind != manifest.Add {
					continue
				}
				pl := placement{string(e.Partition), e.Bucket}
				err := c.seq.rw.Keys(ctx, e.Partition, e.Bucket, e.File, func(keys []arrow.Array, n int) error {
					for i := range n {
						k, err := keyindex.Key(keys, g.keyTypes, i, vals)
						if err != nil {
							return fmt.Errorf("commit: key of %s: %w", e.File.FileName, err)
						}
						if at, ok := ours[string(k)]; ok && !slices.Contains(at, pl) {
							return fmt.Errorf("%w: %w: key %s: this commit writes it to %s, snapshot %d of %q wrote it to %s (file %s) after this writer's key index (snapshot %d)",
								ErrConflict, ErrKeyIndexStale, g.keyString(k), g.where(c, at[0]), s.ID, s.CommitUser, g.where(c, pl), e.File.FileName, from)
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// keyString prints an encoded key's values.
func (g *xpartGuard) keyString(k []byte) string {
	br, err := row.Deserialize(k)
	if err != nil {
		return fmt.Sprintf("%x", k)
	}
	v, err := row.Decode(g.keyTypes, br)
	if err != nil {
		return fmt.Sprintf("%x", k)
	}
	return fmt.Sprint(v)
}

// where prints a partition-bucket as its directory.
func (g *xpartGuard) where(c *Committer, p placement) string {
	if d, err := c.seq.rw.BucketDir([]byte(p.part), p.bucket); err == nil {
		return d
	}
	return fmt.Sprintf("partition %x bucket %d", p.part, p.bucket)
}
