package reader

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Split is the unit of reading: the live data files of one partition-bucket
// of one branch (Java DataSplit).
type Split struct {
	// Partition is the serialized partition BinaryRow, as in manifests.
	Partition []byte
	// PartitionValues are the partition values as Go values, in
	// partition-key order.
	PartitionValues []any
	// Bucket is the bucket number; TotalBuckets is the bucket option the
	// files were written with (-1 for unaware and dynamic buckets).
	Bucket, TotalBuckets int32
	// BucketPath is the directory of the files, relative to the branch root
	// (e.g. "f1=10/bucket-0").
	BucketPath string
	// Files are the data files to read. For primary-key tables they are
	// ordered by level, then by sequence number.
	Files []manifest.DataFileMeta
	// DeletionFiles maps a data file name to its deletion vector.
	DeletionFiles map[string]DeletionFile
	// PrimaryKey reports that the files are key-value files of a
	// primary-key table.
	PrimaryKey bool
	// RawConvertible reports that the files can be read without merging
	// (MergeTreeSplitGenerator's rawConvertible): every file is above level
	// 0 with no retract rows, and they share one level or the table reads
	// with deletion vectors or first-row.
	RawConvertible bool
	// Changes reports a split of a change plan (WithChanges): its files are
	// read one after another, without merging and without deletion
	// vectors, each row with its own row kind (Java DataSplit.isStreaming).
	Changes bool

	diff       bool   // a split of an incremental diff (planDiff)
	diffBefore *Split // its files of the start snapshot (primary-key tables)
	table      *tableState
	schema     *schema.TableSchema // the schema the split is read with
	post       *postponeSource     // postpone.merge-on-read: the partition's bucket-postpone rows
}

// DeletionFile locates the deletion vector of one data file inside a
// deletion-vector index file (Java DeletionFile).
type DeletionFile struct {
	// IndexFile is the index file name under index/.
	IndexFile string
	// Offset, Length locate the vector inside it (manifest.DeletionVectorMeta).
	Offset, Length int32
	// Cardinality is the number of deleted rows, -1 when unknown.
	Cardinality int64
}

// RowCount returns the number of physical rows in the split's files, before
// merging and deletion vectors.
func (s *Split) RowCount() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.RowCount
	}
	return n
}

type bucketKey struct {
	partition string
	bucket    int32
}

// readDeletionFiles loads the deletion-vector entries of sn's index
// manifest, keyed by partition-bucket and data file name.
func readDeletionFiles(ctx context.Context, t *tableState, sn *snapshot.Snapshot) (map[bucketKey]map[string]DeletionFile, error) {
	if sn.IndexManifest == nil || *sn.IndexManifest == "" {
		return nil, nil
	}
	entries, err := t.mc.IndexManifest(ctx, t.fio, *sn.IndexManifest)
	if err != nil {
		return nil, err
	}
	out := map[bucketKey]map[string]DeletionFile{}
	for _, e := range entries {
		if e.Kind != manifest.Add || e.IndexFile.IndexType != manifest.IndexTypeDeletionVectors {
			continue
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		m := out[k]
		if m == nil {
			m = map[string]DeletionFile{}
			out[k] = m
		}
		for _, r := range e.IndexFile.DVRanges {
			card := int64(-1)
			if r.Cardinality != nil {
				card = *r.Cardinality
			}
			m[r.DataFileName] = DeletionFile{IndexFile: e.IndexFile.FileName, Offset: r.Offset, Length: r.Length, Cardinality: card}
		}
	}
	return out, nil
}

// buildSplits groups the live entries (already pruned, see pruner) into one
// split per partition-bucket.
func buildSplits(t *tableState, ts *schema.TableSchema, entries []manifest.Entry,
	dvs map[bucketKey]map[string]DeletionFile, allLevels, postpone bool) ([]*Split, error) {
	pk := len(ts.PrimaryKeys) > 0
	dvEnabled, err := ts.Options.DeletionVectorsEnabled()
	if err != nil {
		return nil, err
	}
	engine, err := ts.Options.MergeEngine()
	if err != nil {
		return nil, err
	}
	firstRow := engine == schema.MergeFirstRow
	skipLevel0 := pk && !allLevels && (dvEnabled || firstRow)
	pc, err := partitionComputer(ts)
	if err != nil {
		return nil, err
	}
	partTypes := row.FieldTypes(pc.Fields)

	// Two passes: the first finds each entry's split and counts the files
	// of every split, the second copies the files into one array carved
	// into the splits' Files (full slice expressions, so that appending to
	// one split's Files never writes into the next).
	splits := map[bucketKey]int{} // → index in out
	out := []*Split{}
	var counts []int
	var splitDVs []map[string]DeletionFile // the deletion vectors of each split's partition-bucket
	at := make([]int32, len(entries))      // split of each entry, -1 when skipped
	partCache := map[string][]any{}
	// Entries come grouped by partition-bucket: the previous entry's
	// partition, its key and split save most conversions and lookups.
	var lastPart []byte
	lastKey, lastBucket, lastSplit := "", int32(0), -1
	for i := range entries {
		e := &entries[i]
		at[i] = -1
		if e.Bucket == -2 && !postpone {
			continue // postpone-bucket files are invisible to batch reads until compacted (Java)
		}
		if skipLevel0 && e.File.Level == 0 {
			continue
		}
		if lastPart == nil || !bytes.Equal(e.Partition, lastPart) {
			lastPart, lastKey, lastSplit = e.Partition, string(e.Partition), -1
		}
		if lastSplit >= 0 && e.Bucket == lastBucket {
			at[i] = int32(lastSplit)
			counts[lastSplit]++
			continue
		}
		pkey := lastKey
		k := bucketKey{pkey, e.Bucket}
		j, ok := splits[k]
		if !ok {
			values, seen := partCache[pkey]
			if !seen {
				br, err := row.Deserialize(e.Partition)
				if err != nil {
					return nil, fmt.Errorf("reader: partition of %s: %w", e.File.FileName, err)
				}
				values, err = row.Decode(partTypes, br)
				if err != nil {
					return nil, fmt.Errorf("reader: partition of %s: %w", e.File.FileName, err)
				}
				partCache[pkey] = values
			}
			dir, err := pc.Path(values)
			if err != nil {
				return nil, fmt.Errorf("reader: partition path of %s: %w", e.File.FileName, err)
			}
			j = len(out)
			splits[k] = j
			out = append(out, &Split{
				Partition: e.Partition, PartitionValues: values, Bucket: e.Bucket, TotalBuckets: e.TotalBuckets,
				BucketPath: bucketPath(ts.Options.DataFilePathDirectory()+dir, e.Bucket), PrimaryKey: pk, table: t, schema: ts,
				DeletionFiles: map[string]DeletionFile{},
			})
			counts = append(counts, 0)
			splitDVs = append(splitDVs, dvs[k])
		}
		at[i] = int32(j)
		counts[j]++
		lastBucket, lastSplit = e.Bucket, j
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	files := make([]manifest.DataFileMeta, total)
	off := 0
	for j, sp := range out {
		sp.Files = files[off : off : off+counts[j]]
		off += counts[j]
	}
	for i := range entries {
		if at[i] < 0 {
			continue
		}
		e := &entries[i]
		sp := out[at[i]]
		sp.Files = append(sp.Files, e.File)
		if df, ok := splitDVs[at[i]][e.File.FileName]; ok {
			sp.DeletionFiles[e.File.FileName] = df
		}
	}
	for _, sp := range out {
		if sp.Bucket == -2 {
			// bucket-postpone files stay in commit order (all their
			// sequence numbers are -1): postpone compaction replays them.
			continue
		}
		// Files usually come in this order already (one level, commit
		// order); sorting is then skipped, with the same result.
		if !filesSorted(sp.Files) {
			slices.SortStableFunc(sp.Files, func(a, b manifest.DataFileMeta) int { return compareFiles(&a, &b) })
		}
		sp.RawConvertible = !pk || rawConvertible(sp.Files, dvEnabled || firstRow)
	}
	// Partition-buckets are unique here, so an unstable sort orders them
	// as sortSplits does.
	slices.SortFunc(out, compareSplits)
	return out, nil
}

// filesSorted reports whether files are in compareFiles order (without
// copying them, as slices.IsSortedFunc would).
func filesSorted(files []manifest.DataFileMeta) bool {
	for i := 1; i < len(files); i++ {
		if compareFiles(&files[i-1], &files[i]) > 0 {
			return false
		}
	}
	return true
}

// compareFiles orders the files of a split: by level, then sequence
// number, then name.
func compareFiles(a, b *manifest.DataFileMeta) int {
	if c := cmp.Compare(a.Level, b.Level); c != 0 {
		return c
	}
	if c := cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber); c != 0 {
		return c
	}
	return cmp.Compare(a.FileName, b.FileName)
}

// rawConvertible mirrors MergeTreeSplitGenerator: a bucket needs no merge
// when every file is above level 0 without retract rows, and the files sit
// on one level (a single sorted run) or deletion vectors / first-row already
// guarantee one live version per key.
func rawConvertible(files []manifest.DataFileMeta, dvOrFirstRow bool) bool {
	if len(files) == 0 {
		return true
	}
	level := files[0].Level
	oneLevel := true
	for _, f := range files {
		if f.Level == 0 {
			return false
		}
		if f.DeleteRowCount == nil || *f.DeleteRowCount != 0 {
			return false
		}
		if f.Level != level {
			oneLevel = false
		}
	}
	return oneLevel || dvOrFirstRow
}

// fileMayMatch evaluates filter on the value statistics of an append-table
// file, evolved from the file's schema to ts.
func fileMayMatch(ctx context.Context, t *tableState, ts *schema.TableSchema, f *manifest.DataFileMeta, filter predicate.Predicate) (bool, error) {
	fileSchema := ts
	if f.SchemaID != ts.ID {
		var err error
		fileSchema, err = t.schema(ctx, f.SchemaID)
		if err != nil {
			return false, err
		}
	}
	st, err := decodeStats(fileSchema.Fields, f.ValueStatsCols, f.ValueStats)
	if err != nil {
		return true, nil // stats we cannot decode never prune
	}
	if fileSchema != ts {
		st = row.EvolveStats(fileSchema.Fields, st, ts.Fields, f.RowCount)
	}
	return filter.TestStats(f.RowCount, st.Min, st.Max, st.NullCounts), nil
}

// partitionComputer returns the partition path renderer of ts's options.
func partitionComputer(ts *schema.TableSchema) (row.PartitionComputer, error) {
	legacy, err := ts.Options.PartitionLegacyName()
	if err != nil {
		return row.PartitionComputer{}, err
	}
	return row.PartitionComputer{Fields: ts.PartitionFields(), DefaultName: ts.Options.PartitionDefaultName(), Legacy: legacy}, nil
}

// bucketPath is the directory of a bucket's files below the partition
// directory dir (data-file.path-directory and the partition path; ends in
// "/" or is empty): Java
// FileStorePathFactory.bucketPath ("bucket-postpone" for bucket -2).
func bucketPath(dir string, bucket int32) string {
	if bucket == -2 {
		return dir + "bucket-postpone"
	}
	return dir + "bucket-" + strconv.Itoa(int(bucket))
}

// EmptySplit returns a split of the plan's table for the partition-bucket
// (partition, bucket) without any data file: what ReadSplitWith needs to
// read the in-memory rows of a partition-bucket that has no files in the
// plan's snapshot, or when the table has no snapshot yet (p.Snapshot nil).
// It mirrors a paimon-cpp RealtimeSplit with no disk splits.
//
// partition is the serialized partition BinaryRow as in manifests
// (row.Serialize; the empty row for an unpartitioned table), decoded with
// the partition fields of p.Schema into PartitionValues. BucketPath is
// computed as for planned splits, TotalBuckets is the table's bucket option,
// and PrimaryKey and RawConvertible are set as a planned split of p.Schema
// would have them. The split is read with p.Schema and the main branch (or
// the branch the plan read).
//
// Errors wrap ErrInvalidScan (a partition that does not decode with the
// partition fields, a negative bucket, a bucket at or above a fixed bucket
// count, a plan not built by Scan.Plan) or ErrUnsupported (a
// postpone-bucket table, bucket = -2, whose files batch reads ignore).
func (p *Plan) EmptySplit(partition []byte, bucket int32) (*Split, error) {
	if p == nil || p.table == nil || p.Schema == nil {
		return nil, fmt.Errorf("%w: plan was not made by Scan.Plan", ErrInvalidScan)
	}
	ts := p.Schema
	total, err := ts.Options.Bucket()
	if err != nil {
		return nil, err
	}
	switch {
	case total == -2:
		return nil, fmt.Errorf("%w: empty split of a postpone-bucket table (bucket = -2)", ErrUnsupported)
	case bucket < 0:
		return nil, fmt.Errorf("%w: empty split of bucket %d", ErrInvalidScan, bucket)
	case total > 0 && int(bucket) >= total:
		return nil, fmt.Errorf("%w: empty split of bucket %d, table has %d buckets", ErrInvalidScan, bucket, total)
	}
	pc, err := partitionComputer(ts)
	if err != nil {
		return nil, err
	}
	br, err := row.Deserialize(partition)
	if err != nil {
		return nil, fmt.Errorf("%w: partition of empty split (bucket %d): %w", ErrInvalidScan, bucket, err)
	}
	values, err := row.Decode(row.FieldTypes(pc.Fields), br)
	if err != nil {
		return nil, fmt.Errorf("%w: partition of empty split (bucket %d): %w", ErrInvalidScan, bucket, err)
	}
	dir, err := pc.Path(values)
	if err != nil {
		return nil, fmt.Errorf("%w: partition path of empty split (bucket %d): %w", ErrInvalidScan, bucket, err)
	}
	return &Split{
		Partition: slices.Clone(partition), PartitionValues: values, Bucket: bucket, TotalBuckets: int32(total),
		BucketPath: bucketPath(ts.Options.DataFilePathDirectory()+dir, bucket), PrimaryKey: len(ts.PrimaryKeys) > 0, RawConvertible: true,
		DeletionFiles: map[string]DeletionFile{}, table: p.table, schema: ts,
	}, nil
}
