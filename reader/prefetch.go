package reader

import (
	"bytes"
	"context"
	"fmt"

	"github.com/paimon-go/paimon/manifest"
)

// Prefetch reads files, data files of one partition-bucket (partition as
// the serialized BinaryRow of manifest entries), such as those a commit
// just added, into p's LookupCache the way a point lookup through p (or a
// later plan holding them) reads them (Narrow, then Records, with rows in
// memory beside the files): each file whole, in the key-value layout of
// the plan's merge read, rows offered by their writer (LookupCache.Offer)
// instead of the file where there are some. A lookup after it then finds
// them decoded instead of decoding each on its way (Java's LookupLevels
// loads a file on its first lookup instead). Files already kept are hits.
//
// The files need not be in p. The layout is that of p's split of the same
// partition-bucket, or of its EmptySplit when p has none, and so are the
// deletion vectors applied (those p's split has for the files).
// Without a lookup cache (WithCache, LookupCache.SetMaxBytes), for a table
// without a primary key, and for a partition-bucket EmptySplit refuses
// (postpone buckets), it reads nothing and returns nil. Files that do not
// fit the cache are read and dropped. p is left unchanged; Prefetch may run
// concurrently with other reads of p.
//
// Errors: ErrInvalidScan for a plan not made by Scan.Plan, and those of
// reading the files (fileio.ErrNotExist, format errors naming the file).
func (p *Plan) Prefetch(ctx context.Context, partition []byte, bucket int32, files []manifest.DataFileMeta) error {
	if p.table == nil || p.Schema == nil {
		return fmt.Errorf("%w: prefetch: the plan was not made by Scan.Plan", ErrInvalidScan)
	}
	if len(files) == 0 || len(p.Schema.PrimaryKeys) == 0 || p.cfg.cache == nil || p.cfg.cache.lookup == nil || !p.cfg.cache.lookup.enabled() {
		return nil
	}
	var like *Split
	for _, sp := range p.Splits {
		if sp.Bucket == bucket && sp.PrimaryKey && sp.table == p.table && sp.post == nil && !sp.diff && !sp.Changes && bytes.Equal(sp.Partition, partition) {
			like = sp
			break
		}
	}
	if like == nil {
		// A partition-bucket new to the plan: the layout of an empty
		// split of it (none for postpone buckets, whose lookups do not
		// narrow a kept plan).
		var err error
		if like, err = p.EmptySplit(partition, bucket); err != nil {
			return nil
		}
	}
	thin, err := like.schema.Options.DataFileThinMode()
	if err != nil {
		return err
	}
	sp := *like
	sp.Files, sp.RawConvertible = files, false
	sr, err := p.newSplitRead(ctx, &sp, true)
	if err != nil {
		return err
	}
	sr.point = true
	for i := range sp.Files {
		if sr.lookupCache(&sp.Files[i]) == nil {
			continue
		}
		for rec, err := range sr.readFile(ctx, &sp.Files[i], !thin) {
			if err != nil {
				return err
			}
			rec.Release()
		}
	}
	return nil
}
