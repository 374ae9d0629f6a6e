package row_test

// Acceptance checks of the BinaryRow, bucket and partition-path code against
// every Java-written fixture table (Avro and ORC manifests), every snapshot,
// tag and branch:
//
//  1. every BinaryRow of every manifest entry (_PARTITION, _MIN_KEY, _MAX_KEY,
//     _KEY_STATS and _VALUE_STATS min/max, index-manifest _PARTITION) decodes
//     with the types of the entry's schema and re-encodes to identical bytes;
//  2. the bucket of every data row of every live file of every snapshot of a
//     fixed-bucket table, computed from its bucket key, is the bucket of the
//     file, and the rows read add up to Java's totalRecordCount;
//  3. the partition directory computed from every entry's partition row is
//     the directory (below the table root) the data file is in.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/orc"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// System field ids of key-value data files (Java SpecialFields; format doc 11.1).
const (
	keyFieldIDOffset = types.SystemFieldIDStart // _KEY_<f> has id offset + id of f
	valueKindID      = 2147483645               // _VALUE_KIND
)

// allCounts are the per-table totals of TestFixtureAllTables.
type allCounts struct {
	Snapshots      int   // snapshots checked, over all branches, plus tags of unlisted snapshots
	Manifests      int   // distinct manifest files read
	Entries        int   // entries in the distinct manifest files (each checked once)
	EntryVisits    int   // entries summed over the snapshots referencing them
	IndexEntries   int   // distinct index-manifest entries checked
	LiveFileVisits int   // live data files summed over snapshots
	DistinctFiles  int   // distinct data files read
	RowsRead       int64 // rows read from the distinct data files
	BucketRows     int64 // rows of RowsRead whose bucket was computed (fixed-bucket files)
	RowVisits      int64 // rows summed over snapshots' live files (= Σ Java totalRecordCount)
	// LegacyStatsRows counts distinct stats min/max rows in the Paimon <= 1.1
	// form (see statsRowRoundTrip).
	LegacyStatsRows int
	// Unreferenced counts files in the data directories that no entry of
	// any snapshot names (orphans the Java writer left behind).
	Unreferenced int
}

// wantAllCounts holds the expected totals. They are backed by numbers Java
// wrote: RowVisits is asserted snapshot by snapshot against the snapshot's
// totalRecordCount (the per-table sums here equal Σ totalRecordCount over
// all snapshot files, branches included), each manifest's entry count against
// its manifest-list row (_NUM_ADDED_FILES + _NUM_DELETED_FILES), and each
// file's rows against its _ROW_COUNT and file footer. The totals guard against
// a run that silently checks less. Unreferenced files are data files the
// upstream writer left on disk without any manifest entry (one each in
// pk_table_scan_and_read_dv_orc and pk_table_scan_and_read_first_row_parquet,
// 7 and 2 rows); their rows are bucket-checked too. LegacyStatsRows: the four
// value-stats rows of parquet_append_table hold a null TIMESTAMP(9) in the
// Paimon <= 1.1 form.
var wantAllCounts = map[string]allCounts{
	"append_09_orc":                                          {Snapshots: 5, Manifests: 5, Entries: 12, EntryVisits: 33, IndexEntries: 0, LiveFileVisits: 25, DistinctFiles: 8, RowsRead: 19, BucketRows: 19, RowVisits: 46, LegacyStatsRows: 0, Unreferenced: 0},
	"append_09_parquet":                                      {Snapshots: 5, Manifests: 5, Entries: 12, EntryVisits: 33, IndexEntries: 0, LiveFileVisits: 25, DistinctFiles: 8, RowsRead: 19, BucketRows: 19, RowVisits: 46, LegacyStatsRows: 0, Unreferenced: 0},
	"append_10_parquet":                                      {Snapshots: 1, Manifests: 1, Entries: 3, EntryVisits: 3, IndexEntries: 0, LiveFileVisits: 3, DistinctFiles: 3, RowsRead: 5, BucketRows: 5, RowVisits: 5, LegacyStatsRows: 0, Unreferenced: 0},
	"append_complex_data_parquet":                            {Snapshots: 4, Manifests: 4, Entries: 9, EntryVisits: 20, IndexEntries: 0, LiveFileVisits: 14, DistinctFiles: 6, RowsRead: 14, BucketRows: 14, RowVisits: 26, LegacyStatsRows: 0, Unreferenced: 0},
	"append_table_with_alter_table_parquet":                  {Snapshots: 2, Manifests: 2, Entries: 4, EntryVisits: 6, IndexEntries: 0, LiveFileVisits: 6, DistinctFiles: 4, RowsRead: 10, BucketRows: 0, RowVisits: 15, LegacyStatsRows: 0, Unreferenced: 0},
	"append_table_with_rt_branch_parquet":                    {Snapshots: 2, Manifests: 2, Entries: 5, EntryVisits: 5, IndexEntries: 0, LiveFileVisits: 5, DistinctFiles: 5, RowsRead: 6, BucketRows: 4, RowVisits: 6, LegacyStatsRows: 0, Unreferenced: 0},
	"append_with_multiple_ts_precision_and_timezone_parquet": {Snapshots: 1, Manifests: 1, Entries: 1, EntryVisits: 1, IndexEntries: 0, LiveFileVisits: 1, DistinctFiles: 1, RowsRead: 3, BucketRows: 0, RowVisits: 3, LegacyStatsRows: 0, Unreferenced: 0},
	"parquet_append_table":                                   {Snapshots: 2, Manifests: 2, Entries: 2, EntryVisits: 3, IndexEntries: 0, LiveFileVisits: 3, DistinctFiles: 2, RowsRead: 9, BucketRows: 9, RowVisits: 15, LegacyStatsRows: 4, Unreferenced: 0},
	"pk_09_parquet":                                          {Snapshots: 8, Manifests: 8, Entries: 23, EntryVisits: 106, IndexEntries: 4, LiveFileVisits: 34, DistinctFiles: 9, RowsRead: 19, BucketRows: 19, RowVisits: 89, LegacyStatsRows: 0, Unreferenced: 0},
	"pk_table_nested_type_parquet":                           {Snapshots: 2, Manifests: 2, Entries: 4, EntryVisits: 6, IndexEntries: 0, LiveFileVisits: 6, DistinctFiles: 4, RowsRead: 12, BucketRows: 12, RowVisits: 20, LegacyStatsRows: 0, Unreferenced: 0},
	"pk_table_scan_and_read_dv_orc":                          {Snapshots: 6, Manifests: 6, Entries: 16, EntryVisits: 68, IndexEntries: 2, LiveFileVisits: 26, DistinctFiles: 8, RowsRead: 24, BucketRows: 24, RowVisits: 68, LegacyStatsRows: 0, Unreferenced: 1},
	"pk_table_scan_and_read_dv_parquet":                      {Snapshots: 6, Manifests: 6, Entries: 16, EntryVisits: 68, IndexEntries: 2, LiveFileVisits: 26, DistinctFiles: 7, RowsRead: 17, BucketRows: 17, RowVisits: 68, LegacyStatsRows: 0, Unreferenced: 0},
	"pk_table_scan_and_read_first_row_parquet":               {Snapshots: 5, Manifests: 5, Entries: 13, EntryVisits: 43, IndexEntries: 0, LiveFileVisits: 19, DistinctFiles: 8, RowsRead: 19, BucketRows: 19, RowVisits: 54, LegacyStatsRows: 0, Unreferenced: 1},
	"pk_table_scan_and_read_mor_parquet":                     {Snapshots: 5, Manifests: 5, Entries: 12, EntryVisits: 41, IndexEntries: 0, LiveFileVisits: 23, DistinctFiles: 8, RowsRead: 19, BucketRows: 19, RowVisits: 59, LegacyStatsRows: 0, Unreferenced: 0},
	"pk_table_with_alter_table_parquet":                      {Snapshots: 6, Manifests: 6, Entries: 19, EntryVisits: 59, IndexEntries: 4, LiveFileVisits: 19, DistinctFiles: 7, RowsRead: 17, BucketRows: 17, RowVisits: 63, LegacyStatsRows: 0, Unreferenced: 0},
}

// tableRun holds what the checks of one fixture table share.
type tableRun struct {
	t          *testing.T
	ctx        context.Context
	dir        string         // absolute table root
	fio        *fileio.FileIO // table root
	onDisk     map[string]string
	schemas    map[string]map[int64]*schema.TableSchema // branch -> id -> schema
	checked    map[string]bool                          // manifest files already checked
	referenced map[string]bool                          // data file names named by some entry
	files      map[string]fileResult                    // bucket dir + "/" + file name -> result
	counts     allCounts
}

type fileResult struct {
	rows   int64
	bucket int32
}

func TestFixtureAllTables(t *testing.T) {
	ctx := context.Background()
	root := fixture.Root(t)
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(root, d.Name(), "schema")); err == nil && st.IsDir() {
			tables = append(tables, d.Name())
		}
	}
	if len(tables) != 15 {
		t.Fatalf("found %d fixture tables, want 15: %v", len(tables), tables)
	}
	for _, name := range tables {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			fio, err := fileio.Open(ctx, "file://"+dir)
			if err != nil {
				t.Fatal(err)
			}
			defer fio.Close()
			r := &tableRun{
				t: t, ctx: ctx, dir: dir, fio: fio,
				onDisk:     dataFilesOnDisk(t, dir),
				schemas:    map[string]map[int64]*schema.TableSchema{},
				checked:    map[string]bool{},
				referenced: map[string]bool{},
				files:      map[string]fileResult{},
			}
			branches := []string{""}
			bdirs, _ := os.ReadDir(filepath.Join(dir, "branch"))
			for _, b := range bdirs {
				if n, ok := strings.CutPrefix(b.Name(), "branch-"); ok && b.IsDir() {
					branches = append(branches, n)
				}
			}
			for _, b := range branches {
				r.checkBranch(b)
			}
			var unreferenced []string
			for fn, d := range r.onDisk {
				if !r.referenced[fn] {
					unreferenced = append(unreferenced, d+"/"+fn)
				}
			}
			slices.Sort(unreferenced)
			if len(unreferenced) > 0 {
				t.Logf("data files no manifest entry names: %v", unreferenced)
			}
			r.counts.Unreferenced = len(unreferenced)
			r.checkUnreferenced(unreferenced)
			t.Logf("counts %+v", r.counts)
			if want, ok := wantAllCounts[name]; ok && r.counts != want {
				t.Errorf("counts\n got %+v\nwant %+v", r.counts, want)
			} else if !ok {
				t.Errorf("no expected counts; got\n\t%q: %s,", name, strings.TrimPrefix(fmt.Sprintf("%#v", r.counts), "row_test.allCounts"))
			}
		})
	}
}

// dataFilesOnDisk maps the name of every data file below the table root
// (everything outside the metadata directories) to its directory, relative to
// the root. Names must be unique.
func dataFilesOnDisk(t *testing.T, dir string) map[string]string {
	t.Helper()
	meta := map[string]bool{"schema": true, "snapshot": true, "manifest": true, "index": true,
		"branch": true, "tag": true, "expected": true, "statistics": true, "changelog": true}
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if meta[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(rel, "/") {
			return nil // EXPECTED.md and other root files
		}
		name := path.Base(rel)
		if prev, ok := out[name]; ok {
			t.Errorf("data file %s in both %s and %s", name, prev, path.Dir(rel))
		}
		out[name] = path.Dir(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *tableRun) schema(branch string, id int64) *schema.TableSchema {
	r.t.Helper()
	m := r.schemas[branch]
	if m == nil {
		m = map[int64]*schema.TableSchema{}
		r.schemas[branch] = m
	}
	if s, ok := m[id]; ok {
		return s
	}
	mgr := schema.NewManager(r.fio, "")
	if branch != "" {
		mgr = mgr.Branch(branch)
	}
	s, err := mgr.Get(r.ctx, id)
	if err != nil {
		r.t.Fatalf("branch %q schema %d: %v", branch, id, err)
	}
	m[id] = s
	return s
}

func (r *tableRun) checkBranch(branch string) {
	t := r.t
	meta := r.fio
	if branch != "" {
		meta = r.fio.Sub("branch/branch-" + branch)
	}
	snaps := snapshot.NewManager(meta)
	list, err := snaps.List(r.ctx)
	if err != nil {
		t.Fatalf("branch %q: %v", branch, err)
	}
	if len(list) == 0 {
		t.Fatalf("branch %q: no snapshots", branch)
	}
	tags, err := snaps.Tags(r.ctx)
	if err != nil {
		t.Fatalf("branch %q tags: %v", branch, err)
	}
	for _, tag := range tags {
		i := slices.IndexFunc(list, func(s *snapshot.Snapshot) bool { return s.ID == tag.ID })
		if i < 0 {
			list = append(list, &tag.Snapshot) // expired snapshot kept alive by the tag
			continue
		}
		if list[i].BaseManifestList != tag.BaseManifestList || list[i].DeltaManifestList != tag.DeltaManifestList {
			t.Errorf("tag %s differs from snapshot %d", tag.Name, tag.ID)
		}
	}
	for _, sn := range list {
		r.checkSnapshot(branch, sn)
	}
}

// checkSnapshot runs all three checks on one snapshot of a branch.
func (r *tableRun) checkSnapshot(branch string, sn *snapshot.Snapshot) {
	t := r.t
	where := fmt.Sprintf("branch %q snapshot %d", branch, sn.ID)
	r.counts.Snapshots++
	mr := manifest.NewReader(r.fio)
	defer mr.Close()

	// 1 and 3: every entry of every manifest of the snapshot.
	var data []manifest.Entry // base + delta entries, for netting
	lists := []string{sn.BaseManifestList, sn.DeltaManifestList}
	if sn.ChangelogManifestList != nil {
		lists = append(lists, *sn.ChangelogManifestList)
	}
	for li, name := range lists {
		if name == "" {
			continue
		}
		metas, err := mr.ManifestList(r.ctx, name)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for _, m := range metas {
			entries, err := mr.Manifest(r.ctx, m.FileName)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if int64(len(entries)) != m.NumAddedFiles+m.NumDeletedFiles {
				t.Errorf("%s: %s has %d entries, manifest list says %d added + %d deleted",
					where, m.FileName, len(entries), m.NumAddedFiles, m.NumDeletedFiles)
			}
			r.counts.EntryVisits += len(entries)
			if li < 2 {
				data = append(data, entries...)
			}
			if r.checked[m.FileName] {
				continue
			}
			r.checked[m.FileName] = true
			r.counts.Manifests++
			r.counts.Entries += len(entries)
			for i := range entries {
				r.checkEntry(branch, fmt.Sprintf("%s %s #%d", where, m.FileName, i), &entries[i])
			}
		}
	}
	if sn.IndexManifest != nil && !r.checked[*sn.IndexManifest] {
		r.checked[*sn.IndexManifest] = true
		idx, err := mr.IndexManifest(r.ctx, *sn.IndexManifest)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		parts := row.FieldTypes(r.schema(branch, sn.SchemaID).PartitionFields())
		for i, e := range idx {
			roundTrip(t, fmt.Sprintf("%s %s #%d _PARTITION", where, *sn.IndexManifest, i), e.Partition, parts)
			r.counts.IndexEntries++
		}
	}
	live, err := manifest.Net(data)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}

	// 2: the reader's splits hold exactly the live files; read every row of
	// each and check its bucket.
	opts := []reader.Option{reader.WithSnapshot(sn.ID), reader.WithAllLevels(), reader.WithoutFallback()}
	if branch != "" {
		opts = append(opts, reader.WithBranch(branch))
	}
	plan, err := reader.NewScan(r.fio, opts...).Plan(r.ctx)
	if err != nil {
		t.Fatalf("%s: plan: %v", where, err)
	}
	wantFiles := map[string]bool{}
	for _, e := range live {
		wantFiles[fmt.Sprintf("%x/%d/%s", e.Partition, e.Bucket, e.File.FileName)] = true
	}
	var rows int64
	nFiles := 0
	for _, sp := range plan.Splits {
		fs := r.schema(branch, sn.SchemaID) // partition types do not change with evolution
		pc := partitionComputer(t, fs)
		part, err := row.Deserialize(sp.Partition)
		if err != nil {
			t.Fatalf("%s: split partition %x: %v", where, sp.Partition, err)
		}
		ppath, err := pc.PathOf(part)
		if err != nil {
			t.Fatalf("%s: split partition %x: %v", where, sp.Partition, err)
		}
		if want := ppath + "bucket-" + strconv.Itoa(int(sp.Bucket)); sp.BucketPath != want {
			t.Errorf("%s: split BucketPath %q, want %q", where, sp.BucketPath, want)
		}
		for _, f := range sp.Files {
			key := fmt.Sprintf("%x/%d/%s", sp.Partition, sp.Bucket, f.FileName)
			if !wantFiles[key] {
				t.Errorf("%s: split file %s/%s is not live (or listed twice)", where, sp.BucketPath, f.FileName)
			}
			delete(wantFiles, key)
			nFiles++
			rows += r.checkFileRows(branch, where, sp, f)
		}
	}
	for k := range wantFiles {
		t.Errorf("%s: live file %s missing from the splits", where, k)
	}
	if rows != sn.TotalRecordCount {
		t.Errorf("%s: %d rows in live files, snapshot totalRecordCount %d", where, rows, sn.TotalRecordCount)
	}
	r.counts.LiveFileVisits += nFiles
	r.counts.RowVisits += rows
}

func partitionComputer(t *testing.T, s *schema.TableSchema) row.PartitionComputer {
	t.Helper()
	legacy, err := s.Options.PartitionLegacyName()
	if err != nil {
		t.Fatal(err)
	}
	return row.PartitionComputer{Fields: s.PartitionFields(), DefaultName: s.Options.PartitionDefaultName(), Legacy: legacy}
}

// checkEntry runs checks 1 and 3 on one manifest entry.
func (r *tableRun) checkEntry(branch, what string, e *manifest.Entry) {
	t := r.t
	f := &e.File
	what += " " + e.Kind.String() + " " + f.FileName
	s := r.schema(branch, f.SchemaID)

	// 1. BinaryRows re-encode to identical bytes.
	part := roundTrip(t, what+" _PARTITION", e.Partition, row.FieldTypes(s.PartitionFields()))
	var keyFields []types.DataField
	if len(s.PrimaryKeys) > 0 {
		keyFields = s.TrimmedPrimaryKeyFields()
	}
	roundTrip(t, what+" _MIN_KEY", f.MinKey, row.FieldTypes(keyFields))
	roundTrip(t, what+" _MAX_KEY", f.MaxKey, row.FieldTypes(keyFields))
	r.statsRoundTrip(what+" _KEY_STATS", keyFields, nil, f.KeyStats)
	r.statsRoundTrip(what+" _VALUE_STATS", s.Fields, f.ValueStatsCols, f.ValueStats)

	n, err := s.NumBuckets()
	if err != nil {
		t.Fatal(err)
	}
	if e.TotalBuckets != 0 && int(e.TotalBuckets) != n {
		t.Errorf("%s: _TOTAL_BUCKETS %d, schema %d bucket option %d", what, e.TotalBuckets, s.ID, n)
	}

	// 3. The partition directory is where the file is.
	partRow, _ := row.Deserialize(e.Partition)
	ppath, err := partitionComputer(t, s).PathOf(partRow)
	if err != nil {
		t.Fatalf("%s: partition %v: %v", what, part, err)
	}
	if ppath != "" {
		if st, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(ppath))); err != nil || !st.IsDir() {
			t.Errorf("%s: partition directory %q does not exist: %v", what, ppath, err)
		}
	}
	if f.ExternalPath != nil {
		t.Errorf("%s: unexpected external path %q", what, *f.ExternalPath)
		return
	}
	want := ppath + "bucket-" + strconv.Itoa(int(e.Bucket))
	r.referenced[f.FileName] = true
	for _, x := range f.ExtraFiles {
		r.referenced[x] = true
	}
	if got, ok := r.onDisk[f.FileName]; !ok {
		t.Errorf("%s: data file not found below the table root (expected in %s)", what, want)
	} else if got != want {
		t.Errorf("%s: data file is in %s, partition %v bucket %d gives %s", what, got, part, e.Bucket, want)
	}
	for _, x := range f.ExtraFiles {
		if got := r.onDisk[x]; got != want {
			t.Errorf("%s: extra file %s is in %q, want %s", what, x, got, want)
		}
	}
}

// checkUnreferenced reads files (paths relative to the table root) that no
// manifest entry names and, if the latest main-branch schema has fixed
// buckets, checks the bucket of each row against the file's bucket-<N>
// directory. Their rows count in RowsRead and BucketRows like any other file.
func (r *tableRun) checkUnreferenced(files []string) {
	t := r.t
	if len(files) == 0 {
		return
	}
	latest, err := schema.NewManager(r.fio, "").Latest(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, err := latest.NumBuckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		dir := path.Dir(p)
		b, err := strconv.Atoi(strings.TrimPrefix(path.Base(dir), "bucket-"))
		if err != nil {
			t.Fatalf("unreferenced file %s is not in a bucket-<N> directory", p)
		}
		sp := &reader.Split{Bucket: int32(b), TotalBuckets: int32(n), BucketPath: dir}
		f := manifest.DataFileMeta{FileName: path.Base(p), SchemaID: latest.ID, RowCount: -1}
		r.checkFileRows("", "unreferenced", sp, f)
	}
}

// roundTrip deserializes a manifest BinaryRow, decodes it with fields,
// re-encodes the values and checks the serialized bytes are identical.
func roundTrip(t *testing.T, what string, data []byte, fields []types.DataType) []any {
	t.Helper()
	r, err := row.Deserialize(data)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	vals, err := row.Decode(fields, r)
	if err != nil {
		t.Fatalf("%s: decode %x: %v", what, data, err)
	}
	again, err := row.Encode(fields, vals)
	if err != nil {
		t.Fatalf("%s: re-encode %v: %v", what, vals, err)
	}
	if got := row.Serialize(again); !bytes.Equal(got, data) {
		t.Errorf("%s: values %v re-encode to\n %x\nstored\n %x", what, vals, got, data)
	}
	return vals
}

// statsRowRoundTrip is roundTrip for a stats min/max row. Besides the form
// Java writes since Paimon 1.2, it accepts exactly the form of Paimon <= 1.1,
// whose InternalRowSerializer wrote a null DECIMAL(p > 18) or TIMESTAMP(p > 3)
// with setNullAt (zero slot, no reserved variable-part bytes) instead of
// reserving the bytes as BinaryRowWriter.writeDecimal/writeTimestamp(null) do
// (changed by apache/paimon#5483). Such rows are counted in LegacyStatsRows.
// It returns the serialized bytes in the Paimon >= 1.2 form.
func (r *tableRun) statsRowRoundTrip(what string, data []byte, typs []types.DataType) []byte {
	t := r.t
	t.Helper()
	br, err := row.Deserialize(data)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	vals, err := row.Decode(typs, br)
	if err != nil {
		t.Fatalf("%s: decode %x: %v", what, data, err)
	}
	again, err := row.Encode(typs, vals)
	if err != nil {
		t.Fatalf("%s: re-encode %v: %v", what, vals, err)
	}
	head := row.Serialize(again)
	if bytes.Equal(head, data) {
		return head
	}
	// The Paimon <= 1.1 form: a null non-compact field encodes like a null
	// compact one.
	legacy := slices.Clone(typs)
	changed := false
	for i, ty := range legacy {
		nonCompact := (ty.Kind == types.KindDecimal && ty.Precision > 18) ||
			((ty.Kind == types.KindTimestamp || ty.Kind == types.KindLocalZonedTimestamp) && ty.Precision > 3)
		if vals[i] == nil && nonCompact {
			legacy[i] = types.DataType{Kind: types.KindBigInt, Nullable: true}
			changed = true
		}
	}
	if changed {
		if l, err := row.Encode(legacy, vals); err == nil && bytes.Equal(row.Serialize(l), data) {
			r.counts.LegacyStatsRows++
			return head
		}
	}
	t.Errorf("%s: values %v re-encode to\n %x\nstored\n %x", what, vals, head, data)
	return data
}

// statsRoundTrip checks a SimpleStats triple: min and max rows re-encode to
// identical bytes with the (nullable) types of the stored columns (all fields,
// or the _VALUE_STATS_COLS subset), and the whole triple re-encodes through
// row.DecodeStats / row.EncodeStats to the same bytes, null counts and
// column list.
func (r *tableRun) statsRoundTrip(what string, fields []types.DataField, cols []string, st manifest.SimpleStats) {
	t := r.t
	t.Helper()
	minR, err := row.Deserialize(st.MinValues)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	maxR, err := row.Deserialize(st.MaxValues)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if minR.Arity() == 0 && maxR.Arity() == 0 && len(st.NullCounts) == 0 && cols == nil {
		// SimpleStats.EMPTY_STATS
		if !bytes.Equal(st.MinValues, manifest.EmptyRow()) || !bytes.Equal(st.MaxValues, manifest.EmptyRow()) {
			t.Errorf("%s: arity-0 stats rows %x / %x are not EMPTY_ROW", what, st.MinValues, st.MaxValues)
		}
		if len(fields) > 0 {
			t.Logf("%s: EMPTY_STATS for %d fields", what, len(fields))
		}
		return
	}
	stored := fields
	if cols != nil {
		stored = nil
		for _, c := range cols {
			_, f, ok := types.FieldByName(fields, c)
			if !ok {
				t.Fatalf("%s: stats column %q not in schema", what, c)
			}
			stored = append(stored, f)
		}
	}
	typs := row.FieldTypes(stored)
	for i := range typs {
		typs[i].Nullable = true
	}
	if len(st.NullCounts) != len(stored) {
		t.Errorf("%s: %d null counts for %d columns", what, len(st.NullCounts), len(stored))
	}
	wantMin := r.statsRowRoundTrip(what+" _MIN_VALUES", st.MinValues, typs)
	wantMax := r.statsRowRoundTrip(what+" _MAX_VALUES", st.MaxValues, typs)

	dec, err := row.DecodeStats(fields, cols, minR, maxR, st.NullCounts)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	cs := make([]row.ColStats, len(fields))
	for i := range fields {
		cs[i] = row.ColStats{Min: dec.Min[i], Max: dec.Max[i], NullCount: dec.NullCounts[i]}
	}
	enc, err := row.EncodeStats(fields, cs, cols != nil)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.Equal(row.Serialize(enc.Min), wantMin) || !bytes.Equal(row.Serialize(enc.Max), wantMax) ||
		!slices.Equal(enc.NullCounts, st.NullCounts) || !slices.Equal(enc.Cols, cols) || (enc.Cols == nil) != (cols == nil) {
		t.Errorf("%s: EncodeStats(DecodeStats) differs:\n min %x\nwant %x\n max %x\nwant %x\n nulls %v want %v cols %v want %v",
			what, row.Serialize(enc.Min), wantMin, row.Serialize(enc.Max), wantMax,
			enc.NullCounts, st.NullCounts, enc.Cols, cols)
	}
}

// checkFileRows returns the row count of a live data file of split sp (f.RowCount
// -1 = unknown), reading
// the file (once per table) to check that every row's bucket key hashes to
// sp.Bucket when the file's schema has fixed buckets.
func (r *tableRun) checkFileRows(branch, where string, sp *reader.Split, f manifest.DataFileMeta) int64 {
	t := r.t
	key := sp.BucketPath + "/" + f.FileName
	if res, ok := r.files[key]; ok {
		if res.bucket != sp.Bucket {
			t.Errorf("%s: %s listed in bucket %d and %d", where, key, res.bucket, sp.Bucket)
		}
		return res.rows
	}
	s := r.schema(branch, f.SchemaID)
	n, err := s.NumBuckets()
	if err != nil {
		t.Fatal(err)
	}
	if int(sp.TotalBuckets) != n && !(sp.TotalBuckets == -1 && n == -1) {
		t.Errorf("%s: %s: split TotalBuckets %d, schema %d bucket %d", where, key, sp.TotalBuckets, s.ID, n)
	}
	if !strings.HasSuffix(sp.BucketPath, "bucket-"+strconv.Itoa(int(sp.Bucket))) {
		t.Errorf("%s: BucketPath %q does not end in bucket-%d", where, sp.BucketPath, sp.Bucket)
	}
	if n <= 0 && len(s.PrimaryKeys) == 0 && sp.Bucket != 0 {
		t.Errorf("%s: %s: bucket-unaware append file in bucket %d", where, key, sp.Bucket)
	}

	// Columns to read: the bucket key from the value columns, and for
	// primary-key files the _KEY_ copies (the key the writer hashed) and
	// _VALUE_KIND.
	bk := s.BucketKeyFields()
	want := slices.Clone(bk)
	pk := len(s.PrimaryKeys) > 0
	var keyPos []int // per bucket-key field: position of its _KEY_ column in want, or -1
	if pk {
		trimmed := s.TrimmedPrimaryKeys()
		for _, k := range bk {
			if slices.Contains(trimmed, k.Name) {
				keyPos = append(keyPos, len(want))
				want = append(want, types.DataField{ID: keyFieldIDOffset + k.ID, Name: "_KEY_" + k.Name, Type: k.Type})
			} else {
				keyPos = append(keyPos, -1)
			}
		}
		want = append(want, types.DataField{ID: valueKindID, Name: "_VALUE_KIND", Type: types.DataType{Kind: types.KindTinyInt}})
	}
	var fm format.Format
	switch path.Ext(f.FileName) {
	case ".parquet":
		fm = parquet.Format{}
	case ".orc":
		fm = orc.Format{}
	default:
		t.Fatalf("%s: %s: no reader for this format", where, key)
	}
	file, err := r.fio.Open(r.ctx, key)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	defer file.Close()
	rd, err := fm.NewReader(r.ctx, file, key, want, format.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	defer rd.Close()
	bkTypes := row.FieldTypes(bk)
	var rows int64
	mismatches := 0
	for {
		b, err := rd.Next(r.ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", where, key, err)
		}
		rec := b.Record
		for i := 0; i < int(rec.NumRows()); i++ {
			vals := make([]any, len(bk))
			for j := range bk {
				col := j
				if pk && keyPos[j] >= 0 {
					col = keyPos[j]
				}
				vals[j] = goValue(t, rec.Column(col), i, bk[j].Type)
				if pk && keyPos[j] >= 0 {
					if v := goValue(t, rec.Column(j), i, bk[j].Type); !sameGo(v, vals[j]) {
						kind := rec.Column(len(want) - 1).(*array.Int8).Value(i)
						t.Errorf("%s: %s row %d (%s): value column %s = %v, key column = %v",
							where, key, b.FirstRow+int64(i), row.RowKindString(byte(kind)), bk[j].Name, v, vals[j])
					}
				}
			}
			if n > 0 {
				kr, err := row.Encode(bkTypes, vals)
				if err != nil {
					t.Fatalf("%s: %s row %d: bucket key %v: %v", where, key, b.FirstRow+int64(i), vals, err)
				}
				r.counts.BucketRows++
				if got := row.Bucket(kr, n); got != int(sp.Bucket) {
					if mismatches < 5 {
						t.Errorf("%s: %s row %d: bucket key %v hashes to bucket %d of %d",
							where, key, b.FirstRow+int64(i), vals, got, n)
					}
					mismatches++
				}
			}
			rows++
		}
		rec.Release()
	}
	if mismatches > 0 {
		t.Errorf("%s: %s: %d of %d rows in the wrong bucket", where, key, mismatches, rows)
	}
	if (f.RowCount >= 0 && rows != f.RowCount) || rows != rd.NumRows() {
		t.Errorf("%s: %s: read %d rows, _ROW_COUNT %d, file footer %d", where, key, rows, f.RowCount, rd.NumRows())
	}
	r.files[key] = fileResult{rows: rows, bucket: sp.Bucket}
	r.counts.DistinctFiles++
	r.counts.RowsRead += rows
	return rows
}

// goValue converts element i of a column in the project's Arrow mapping to
// the Go value of type typ (types.ArrowValue), for the scalar types a bucket
// key can have.
func goValue(t *testing.T, a arrow.Array, i int, typ types.DataType) any {
	t.Helper()
	v, err := types.ArrowValue(typ, a, i)
	if err != nil {
		t.Fatalf("bucket key column: %v", err)
	}
	return v
}

func sameGo(a, b any) bool {
	if da, ok := a.(types.Decimal); ok {
		db, ok := b.(types.Decimal)
		return ok && da.Unscaled.Cmp(db.Unscaled) == 0 && da.Scale == db.Scale
	}
	if ba, ok := a.([]byte); ok {
		bb, ok := b.([]byte)
		return ok && bytes.Equal(ba, bb)
	}
	return a == b
}
