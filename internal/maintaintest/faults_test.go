package maintaintest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// Issue "Compaction and table maintenance": a crash at any point in
// compaction, expiration or cleanup leaves the table readable with the same
// rows and the next run finishes the job; an object-store failure never
// panics, never publishes a partial snapshot, never deletes live data.
// Expiration is covered by TestExpireInterrupted. This file covers dedicated
// compaction (compaction.Compact, TestCompactFaults), on-demand manifest
// compaction (commit.Committer.CompactManifests, TestCompactManifestsFaults)
// and orphan cleanup (orphan.Clean, TestOrphanCleanFaults) on a real MinIO:
// named faults are injected by testenv.FaultProxy; runs are stopped at
// their k-th request of a kind, for every k of an uninterrupted run, by
// crashProxy (below), in front of it.
//
// Every case works on its own copy of a base table, built once per test,
// under its own prefix of the test's bucket, so cases run in parallel. File
// names are preserved by the copy, so a case's files can be compared with
// the base's and with an uninterrupted run's by name.

func TestMain(m *testing.M) { testenv.Main(m) }

// --- Base tables ------------------------------------------------------------

// faultKind is one of the tables the faults meet.
type faultKind struct {
	name string
	pk   bool // primary key (p, k), 2 buckets; else a bucket-unaware append table
	dv   bool // deletion-vectors.enabled
}

// faultKinds returns the three tables: primary key, primary key with
// deletion vectors, append.
func faultKinds() (pk, dv, appendOnly faultKind) {
	return faultKind{name: "pk", pk: true}, faultKind{name: "dv", pk: true, dv: true}, faultKind{name: "append"}
}

// maxLevel is the highest level: num-levels defaults to
// num-sorted-run.compaction-trigger + 1 (Java CoreOptions.numLevels), and
// the trigger is 2.
const maxLevel = 2

func (k faultKind) schema() catalog.Schema {
	fields := []types.DataField{
		{Name: "p", Type: types.String().NotNull()},
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "v", Type: types.BigInt()},
		{Name: "s", Type: types.String()},
	}
	if !k.pk {
		return catalog.Schema{Fields: fields, PartitionKeys: []string{"p"},
			Options: map[string]string{"bucket": "-1", compaction.KeyMinFileNum: "3"}}
	}
	// More than two sorted runs trigger a minor compaction; with size ratio
	// 0 it leaves the large highest-level file alone and writes level 1.
	opts := map[string]string{"bucket": "2", compaction.KeyNumSortedRunCompactionTrigger: "2",
		compaction.KeyMaxSizeAmplificationPercent: "1000", compaction.KeySizeRatio: "0"}
	if k.dv {
		opts["deletion-vectors.enabled"] = "true"
	}
	return catalog.Schema{Fields: fields, PartitionKeys: []string{"p"}, PrimaryKeys: []string{"p", "k"}, Options: opts}
}

// faultBase is a table built once per test on MinIO and copied by every
// case, with what each of its snapshots reads, computed from a model of the
// writes (and checked against the table once).
type faultBase struct {
	kind      faultKind
	bucketURL string // the test's bucket, direct to MinIO
	root      string // object prefix of the table ("base-pk/db.db/t")
	ts        *schema.TableSchema
	ids       []int64
	kinds     []snapshot.CommitKind
	// rows and all are the sorted JSONL lines that a batch read (level 0
	// skipped on deletion-vector tables) and a read of all levels of each
	// snapshot return.
	rows, all map[int64][]string
	files     []string        // every stored file
	used      map[string]bool // the files the snapshots refer to
	clones    atomic.Int64
	s3        *minio.Client // copies the base server-side
	bucket    string
}

func (b *faultBase) latest() int64 { return b.ids[len(b.ids)-1] }

// withPath returns bucketURL with the object prefix p.
func withPath(t testing.TB, bucketURL, p string) string {
	t.Helper()
	u, err := url.Parse(bucketURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + p
	return u.String()
}

// pad returns 1024 hex digits derived from seed: a value zstd cannot shrink
// much.
func pad(seed string) string {
	var b strings.Builder
	h := sha256.Sum256([]byte(seed))
	for range 16 {
		b.WriteString(hex.EncodeToString(h[:]))
		h = sha256.Sum256(h[:])
	}
	return b.String()
}

// buildBase writes the base table of kind under prefix name of the bucket.
// Primary-key tables (one partition of two buckets): two commits of
// inserts, updates and deletes (level 0, written without compaction), a
// full compaction, and two more commits (snapshots 1-5), so that each
// bucket holds two level-0 runs over a large highest-level run. With
// leftovers, then a minor compaction, one more commit, and a compaction
// whose commit failed with an unknown outcome and that could delete
// nothing: its data files, index files, manifests, manifest lists and index
// manifest are orphans. Append table (partitions a and b): four commits of
// one file per partition.
func buildBase(t *testing.T, bucketURL, name string, kind faultKind, leftovers bool) *faultBase {
	t.Helper()
	ctx := context.Background()
	tbl := tabletest.NewTable(t, withPath(t, bucketURL, name), kind.schema())
	b := &faultBase{kind: kind, bucketURL: bucketURL, root: name + "/db.db/t", ts: tbl.Schema,
		rows: map[int64][]string{}, all: map[int64][]string{}}
	u, err := url.Parse(bucketURL)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := url.Parse(u.Query().Get("endpoint"))
	if err != nil {
		t.Fatal(err)
	}
	b.bucket = u.Host
	b.s3, err = minio.New(endpoint.Host, &minio.Options{Creds: credentials.NewStaticV4(testenv.MinIOUser, testenv.MinIOPassword, ""),
		Region: testenv.MinIORegion})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		p string
		k int32
	}
	live := map[key][]any{}
	var appended, compacted [][]any // compacted: the rows as of the last compaction
	rowsOf := func() [][]any {
		if !kind.pk {
			return slices.Clone(appended)
		}
		return slices.Collect(maps.Values(live))
	}
	record := func(id int64, compaction bool) {
		if compaction {
			compacted = rowsOf()
		}
		b.all[id] = tabletest.JSONL(t, b.ts.Fields, rowsOf()...)
		b.rows[id] = b.all[id]
		if kind.dv {
			b.rows[id] = tabletest.JSONL(t, b.ts.Fields, compacted...)
		}
	}
	ws := withOptions(tbl.Schema, schema.KeyWriteOnly, "true")
	if kind.pk {
		ws = levelZeroWriter(t, tbl, "deletion-vectors.enabled", "")
	}
	commitN := 0
	write := func(rows ...[]any) {
		commitN++
		for _, r := range rows {
			switch k := (key{r[0].(string), r[1].(int32)}); r[4] {
			case "+I", "+U":
				if kind.pk {
					live[k] = r[:4]
				} else {
					appended = append(appended, r[:4])
				}
			case "-D":
				delete(live, k)
			}
		}
		record(writeCommit(t, tbl, ws, rows...), false)
	}
	// Rows of the first two commits carry a pad, so that the highest level
	// is much larger than the level-0 files written after it.
	row := func(p string, k int32, kindStr string) []any {
		var s any
		if kind.pk && commitN < 2 {
			s = pad(fmt.Sprintf("%s/%d/%d", p, k, commitN))
		}
		return []any{p, k, int64(commitN+1)*100 + int64(k), s, kindStr}
	}
	ks := func(kindStr string, keys ...int32) [][]any {
		var out [][]any
		for _, k := range keys {
			out = append(out, row("a", k, kindStr))
		}
		return out
	}
	if kind.pk {
		write(ks("+I", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)...)
		write(slices.Concat(ks("+U", 1, 2, 3, 4, 5, 6), ks("+I", 17, 18, 19, 20), ks("-D", 8, 12))...)
		record(compact(t, tbl, true, true), true)
		write(slices.Concat(ks("+U", 1, 3, 5, 9, 11, 13), ks("-D", 4, 14), ks("+I", 21))...)
		write(slices.Concat(ks("+U", 2, 7, 10, 15), ks("-D", 9, 16), ks("+I", 22, 23))...)
	} else {
		for c := range 4 {
			k := int32(2 * c)
			write(row("a", k, "+I"), row("a", k+1, "+I"), row("b", k, "+I"), row("b", k+1, "+I"))
		}
	}
	if leftovers {
		record(compact(t, tbl, false, true), true)
		// Keys 17 to 20 are on the highest level only: the next
		// compaction marks them deleted in new index files.
		write(slices.Concat(ks("+U", 17, 18), ks("-D", 19, 20), ks("+I", 24))...)
		proxy, u := testenv.NewFaultProxy(t, withPath(t, bucketURL, b.root))
		fio, err := fileio.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer fio.Close()
		last, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		snap := "snapshot/snapshot-" + strconv.FormatInt(last+1, 10)
		proxy.Inject(put(snap, 500, 0), &testenv.Fault{Method: http.MethodGet, Key: snap, Status: 500},
			&testenv.Fault{Method: http.MethodDelete, Status: 403})
		if _, err := compaction.Compact(ctx, fio, b.ts, "compactor", compaction.Options{}); err == nil ||
			!strings.Contains(err.Error(), "outcome unknown") {
			t.Fatalf("compaction leaving orphans: %v, want an unknown outcome", err)
		}
		proxy.Clear()
	}
	snaps, err := snapshot.NewManager(tbl.FileIO).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		b.ids = append(b.ids, s.ID)
		b.kinds = append(b.kinds, s.CommitKind)
	}
	b.files = storedFiles(t, tbl.FileIO)
	b.used = referencedFiles(t, tbl.FileIO, nil, b.ids)
	for _, id := range b.ids {
		checkRead(t, tbl.FileIO, nil, id, b.rows[id], b.all[id])
	}
	return b
}

// checkRead checks what snapshot id of the table at fio reads: rows with a
// batch read, all when reading all levels (read only where the two differ:
// snapshots of deletion-vector tables with rows on level 0).
func checkRead(t testing.TB, fio *fileio.FileIO, cache *reader.Cache, id int64, rows, all []string) {
	t.Helper()
	opts := []reader.Option{reader.WithSnapshot(id)}
	if cache != nil {
		opts = append(opts, reader.WithCache(cache))
	}
	got, err := readTable(context.Background(), fio, opts...)
	if err != nil {
		t.Fatalf("read snapshot %d: %v", id, err)
	}
	if !slices.Equal(got, rows) {
		t.Fatalf("snapshot %d: %s", id, diffLines(got, rows))
	}
	if slices.Equal(rows, all) {
		return
	}
	got, err = readTable(context.Background(), fio, append(opts, reader.WithAllLevels())...)
	if err != nil {
		t.Fatalf("read snapshot %d, all levels: %v", id, err)
	}
	if !slices.Equal(got, all) {
		t.Fatalf("snapshot %d, all levels: %s", id, diffLines(got, all))
	}
}

// storedFiles lists every file of the table at fio, sorted.
func storedFiles(t testing.TB, fio *fileio.FileIO) []string {
	t.Helper()
	infos, err := fio.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	out := make([]string, 0, len(infos))
	for _, fi := range infos {
		out = append(out, fi.Path)
	}
	return out
}

// referencedFiles returns the files the snapshots ids of the table at fio
// refer to: snapshot files, manifest lists, manifests, the index manifest
// and its index files, and the data files of every level. cache may be nil.
func referencedFiles(t testing.TB, fio *fileio.FileIO, cache *reader.Cache, ids []int64) map[string]bool {
	t.Helper()
	ctx := context.Background()
	if cache == nil {
		cache = reader.NewCache(16 << 20)
	}
	mc := cache.Manifests()
	sm := snapshot.NewManager(fio)
	out := map[string]bool{}
	for _, id := range ids {
		plan, err := reader.NewScan(fio, reader.WithSnapshot(id), reader.WithAllLevels(), reader.WithCache(cache)).Plan(ctx)
		if err != nil {
			t.Fatalf("plan snapshot %d: %v", id, err)
		}
		for _, sp := range plan.Splits {
			for _, f := range sp.Files {
				out[sp.BucketPath+"/"+f.FileName] = true
			}
		}
		s := plan.Snapshot
		out[sm.Path(id)] = true
		lists := []string{s.BaseManifestList, s.DeltaManifestList}
		if s.ChangelogManifestList != nil {
			lists = append(lists, *s.ChangelogManifestList)
		}
		for _, l := range lists {
			out[manifest.Path(l)] = true
			metas, err := mc.ManifestList(ctx, fio, l)
			if err != nil {
				t.Fatalf("snapshot %d: manifest list %s: %v", id, l, err)
			}
			for _, m := range metas {
				out[manifest.Path(m.FileName)] = true
			}
		}
		if s.IndexManifest != nil {
			out[manifest.Path(*s.IndexManifest)] = true
			entries, err := mc.IndexManifest(ctx, fio, *s.IndexManifest)
			if err != nil {
				t.Fatalf("snapshot %d: index manifest: %v", id, err)
			}
			for _, e := range entries {
				out["index/"+e.IndexFile.FileName] = true
			}
		}
	}
	return out
}

// snapshotID is the id of a snapshot file path, or -1.
func snapshotID(p string) int64 {
	s, ok := strings.CutPrefix(p, "snapshot/snapshot-")
	if !ok {
		return -1
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return id
}

// keptMeta reports the files nothing refers to that are not orphans:
// schemas and snapshot hints.
func keptMeta(p string) bool {
	return strings.HasPrefix(p, "schema/schema-") || p == "snapshot/LATEST" || p == "snapshot/EARLIEST"
}

// fileClass names what a table file is: data, index, manifest,
// manifest-list, index-manifest, snapshot-N, LATEST, ... p is relative to
// the table root, or an object key containing "/t/".
func fileClass(p string) string {
	if _, rel, ok := strings.Cut(p, "/t/"); ok {
		p = rel
	}
	dir, name, _ := strings.Cut(p, "/")
	switch {
	case dir == "snapshot":
		return name
	case dir == "index":
		return "index"
	case strings.HasPrefix(name, "manifest-list-"):
		return "manifest-list"
	case strings.HasPrefix(name, "index-manifest-"):
		return "index-manifest"
	case dir == "manifest":
		return "manifest"
	case strings.Contains(p, "/bucket-"):
		return "data"
	}
	return p
}

// --- Cases: a copy of the base behind the proxies ---------------------------

// faultTable is a case's copy of a base table, reached through a
// crashProxy in front of a testenv.FaultProxy in front of MinIO.
type faultTable struct {
	t     *testing.T
	ctx   context.Context
	b     *faultBase
	proxy *testenv.FaultProxy
	crash *crashProxy
	fio   *fileio.FileIO // through the proxies: the run under faults
	dio   *fileio.FileIO // direct: checks and the runs after it
	cache *reader.Cache
	// rows and all are what each snapshot reads (see faultBase), the
	// base's and those of new snapshots.
	rows, all map[int64][]string
}

// clone copies the base table to a new prefix and opens it through the
// proxies.
func (b *faultBase) clone(t *testing.T) *faultTable {
	t.Helper()
	ctx := context.Background()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	dst := fmt.Sprintf("%s-%s-%d/t", name, b.kind.name, b.clones.Add(1))
	errs := make(chan error, len(b.files))
	sem := make(chan struct{}, 8)
	for _, p := range b.files {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			_, err := b.s3.CopyObject(ctx, minio.CopyDestOptions{Bucket: b.bucket, Object: dst + "/" + p},
				minio.CopySrcOptions{Bucket: b.bucket, Object: b.root + "/" + p})
			errs <- err
		}()
	}
	for range b.files {
		if err := <-errs; err != nil {
			t.Fatalf("copy the base: %v", err)
		}
	}
	dio, err := fileio.Open(ctx, withPath(t, b.bucketURL, dst))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dio.Close() })
	proxy, purl := testenv.NewFaultProxy(t, withPath(t, b.bucketURL, dst))
	crash, curl := newCrashProxy(t, purl)
	fio, err := fileio.Open(ctx, curl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return &faultTable{t: t, ctx: ctx, b: b, proxy: proxy, crash: crash, fio: fio, dio: dio, cache: reader.NewCache(16 << 20),
		rows: maps.Clone(b.rows), all: maps.Clone(b.all)}
}

// stored returns the set of stored files.
func (ft *faultTable) stored() map[string]bool {
	ft.t.Helper()
	out := map[string]bool{}
	for _, p := range storedFiles(ft.t, ft.dio) {
		out[p] = true
	}
	return out
}

// checkSnapshots checks that the table has the base's snapshots followed
// by n COMPACT snapshots, records that the new ones read rows and all, and
// returns the ids.
func (ft *faultTable) checkSnapshots(what string, n int, rows, all []string) []int64 {
	ft.t.Helper()
	sm := snapshot.NewManager(ft.dio)
	ids, err := sm.IDs(ft.ctx)
	if err != nil {
		ft.t.Fatalf("%s: list snapshots: %v", what, err)
	}
	// The base's snapshot files are never rewritten: read only the kinds
	// of the new ones.
	kinds := slices.Clone(ft.b.kinds[:min(len(ids), len(ft.b.kinds))])
	for _, id := range ids[len(kinds):] {
		s, err := sm.Get(ft.ctx, id)
		if err != nil {
			ft.t.Fatalf("%s: snapshot %d: %v", what, id, err)
		}
		kinds = append(kinds, s.CommitKind)
	}
	wantIDs, wantKinds := slices.Clone(ft.b.ids), slices.Clone(ft.b.kinds)
	for i := range n {
		id := ft.b.latest() + int64(i) + 1
		wantIDs, wantKinds = append(wantIDs, id), append(wantKinds, snapshot.KindCompact)
		ft.rows[id], ft.all[id] = rows, all
	}
	if !slices.Equal(ids, wantIDs) || !slices.Equal(kinds, wantKinds) {
		ft.t.Fatalf("%s: snapshots %v of kinds %v, want %v of kinds %v", what, ids, kinds, wantIDs, wantKinds)
	}
	return ids
}

// checkIntact checks that every file the base's snapshots refer to is still
// stored (files are never rewritten, so the base's snapshots read what they
// read before) and that the snapshots after the base's read their rows.
func (ft *faultTable) checkIntact(what string, ids []int64) {
	ft.t.Helper()
	stored := ft.stored()
	for p := range ft.b.used {
		if !stored[p] {
			ft.t.Fatalf("%s: %s, used by the base's snapshots, is gone", what, p)
		}
	}
	for _, id := range ids[len(ft.b.ids)-1:] {
		checkRead(ft.t, ft.dio, ft.cache, id, ft.rows[id], ft.all[id])
	}
}

// checkAll checks that every snapshot of ids reads its rows and that every
// file they refer to is stored; it returns those files.
func (ft *faultTable) checkAll(what string, ids []int64) map[string]bool {
	ft.t.Helper()
	for _, id := range ids {
		checkRead(ft.t, ft.dio, ft.cache, id, ft.rows[id], ft.all[id])
	}
	used := referencedFiles(ft.t, ft.dio, ft.cache, ids)
	stored := ft.stored()
	for p := range used {
		if !stored[p] {
			ft.t.Fatalf("%s: %s, used by a snapshot, is not stored", what, p)
		}
	}
	return used
}

// layout describes the live files of the latest snapshot, sorted: bucket
// path, level, row count, sequence numbers and deleted rows (the deletion
// vector's cardinality), with the file name if names is set (names are
// random per run), then the number of manifests of the latest snapshot's
// base and delta manifest lists.
func (ft *faultTable) layout(names bool) []string {
	ft.t.Helper()
	plan, err := reader.NewScan(ft.dio, reader.WithAllLevels(), reader.WithCache(ft.cache)).Plan(ft.ctx)
	if err != nil {
		ft.t.Fatalf("plan: %v", err)
	}
	var out []string
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			dv := int64(0)
			if d, ok := sp.DeletionFiles[f.FileName]; ok {
				dv = d.Cardinality
			}
			l := fmt.Sprintf("%s L%d rows=%d seq=%d..%d dv=%d", sp.BucketPath, f.Level, f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber, dv)
			if names {
				l += " " + f.FileName
			}
			out = append(out, l)
		}
	}
	slices.Sort(out)
	mc := ft.cache.Manifests()
	for _, l := range []string{plan.Snapshot.BaseManifestList, plan.Snapshot.DeltaManifestList} {
		metas, err := mc.ManifestList(ft.ctx, ft.dio, l)
		if err != nil {
			ft.t.Fatalf("manifest list %s: %v", l, err)
		}
		out = append(out, fmt.Sprintf("manifests=%d", len(metas)))
	}
	return out
}

// clean runs orphan.Clean through fio, every unreferenced file counting as
// an orphan, and checks that it deleted exactly the stored files no
// snapshot of ids refers to, and that what is left is exactly the
// referenced files, the schema and the hints. With all, every snapshot is
// read again afterwards; otherwise the base's files are checked to be there
// and the new snapshots are read.
func (ft *faultTable) clean(fio *fileio.FileIO, ids []int64, all bool) {
	ft.t.Helper()
	before := ft.stored()
	// ids are the base's snapshots and new ones.
	used := referencedFiles(ft.t, ft.dio, ft.cache, ids[len(ft.b.ids):])
	maps.Copy(used, ft.b.used)
	res, err := orphan.Clean(ft.ctx, fio, time.Minute, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil {
		ft.t.Fatalf("orphan.Clean: %v", err)
	}
	var want []string
	for p := range before {
		if !used[p] && !keptMeta(p) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if !slices.Equal(res.Deleted, want) {
		ft.t.Fatalf("orphan.Clean deleted %v, want %v", res.Deleted, want)
	}
	if all {
		ft.checkAll("after orphan cleanup", ids)
	} else {
		ft.checkIntact("after orphan cleanup", ids)
	}
	var left []string
	for p := range ft.stored() {
		if !used[p] && !keptMeta(p) {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		ft.t.Fatalf("after orphan cleanup, unreferenced files are left: %v", left)
	}
}

// --- crashProxy: stop a run at its k-th request of a kind ------------------

// crashProxy sits in front of a FaultProxy and fails (403, which fileio
// does not retry) the k-th request that counts after arm; in crash mode
// every request after it fails too: the process died there, and nothing it
// would have done after (cleanup, checks) reaches the store. It exists
// because testenv.Fault matches object keys, and the names of data files
// and manifests are random per run, so the k-th PUT of a run cannot be
// named in advance.
type crashProxy struct {
	mu     sync.Mutex
	bucket string
	counts func(method, key string) bool // nil: inactive
	k      int
	crash  bool
	n      int
	failed string // key of the request failed
	down   bool
}

func newCrashProxy(t *testing.T, bucketURL string) (*crashProxy, string) {
	t.Helper()
	u, err := url.Parse(bucketURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	target, err := url.Parse(q.Get("endpoint"))
	if err != nil || target.Host == "" {
		t.Fatalf("crash proxy: %s names no endpoint (%v)", bucketURL, err)
	}
	c := &crashProxy{bucket: u.Host}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Keys as testenv.FaultProxy logs them: listings are "?list=PREFIX".
		key := strings.TrimPrefix(r.URL.Path, "/"+c.bucket+"/")
		if r.URL.Path == "/"+c.bucket || r.URL.Path == "/"+c.bucket+"/" {
			key = "?list=" + r.URL.Query().Get("prefix")
		}
		if c.fails(r.Method, key) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			if r.Method != http.MethodHead {
				_, _ = fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code>`+
					`<Message>injected by crashProxy</Message><RequestId>0</RequestId></Error>`)
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	q.Set("endpoint", srv.URL)
	u.RawQuery = q.Encode()
	return c, u.String()
}

func (c *crashProxy) fails(method, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return true
	}
	if c.counts == nil || !c.counts(method, key) {
		return false
	}
	c.n++
	if c.n != c.k {
		return false
	}
	c.failed, c.down = key, c.crash
	return true
}

// arm makes the proxy fail the k-th request (1-based) for which counts
// holds, and with crash every request after it.
func (c *crashProxy) arm(counts func(method, key string) bool, k int, crash bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts, c.k, c.crash, c.n, c.failed, c.down = counts, k, crash, 0, "", false
}

// disarm stops failing and returns the key of the request it failed (""
// when the run made fewer than k such requests).
func (c *crashProxy) disarm() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts, c.down = nil, false
	return c.failed
}

func isPut(method, _ string) bool    { return method == http.MethodPut }
func isDelete(method, _ string) bool { return method == http.MethodDelete }

// isObjectGet: a GET of an object (not a LIST).
func isObjectGet(method, key string) bool {
	return method == http.MethodGet && !strings.HasPrefix(key, "?list=")
}

// isList: a LIST request has no object key (FaultProxy logs it as "GET
// ?list=PREFIX").
func isList(method, key string) bool {
	return method == http.MethodGet && strings.HasPrefix(key, "?list=")
}

// requests returns the keys of the requests of a FaultProxy log for
// which counts holds.
func requests(log []string, counts func(method, key string) bool) []string {
	var out []string
	for _, l := range log {
		if m, k, ok := strings.Cut(l, " "); ok && counts(m, k) {
			out = append(out, k)
		}
	}
	return out
}

// --- Outcomes and named faults ----------------------------------------------

type outcome int

const (
	failed    outcome = iota // an error; nothing published
	succeeded                // no error; the snapshot published
	unknown                  // an error saying the outcome is unknown; the snapshot was published
)

// checkOutcome checks the result of a run under faults: id is the snapshot
// it returned, next the id it publishes.
func checkOutcome(t *testing.T, want outcome, id, next int64, err error, errHas string) {
	t.Helper()
	switch want {
	case succeeded:
		if err != nil || id != next {
			t.Fatalf("run under faults: snapshot %d, %v; want snapshot %d", id, err, next)
		}
	case failed, unknown:
		if err == nil {
			t.Fatalf("run under faults succeeded (snapshot %d), want an error", id)
		}
		if id != 0 {
			t.Fatalf("run under faults returned snapshot %d with error %v", id, err)
		}
		if want == unknown {
			errHas = "outcome unknown"
		}
		if !strings.Contains(err.Error(), errHas) {
			t.Fatalf("error %q does not mention %q", err, errHas)
		}
	}
}

type namedFault struct {
	name string
	// faults returns the faults; snap is the key of the snapshot file the
	// run creates ("snapshot/snapshot-N").
	faults func(snap string) []*testenv.Fault
	want   outcome
	// only restricts the case to tables of this kind.
	only string
}

func put(key string, status, times int) *testenv.Fault {
	return &testenv.Fault{Method: http.MethodPut, Key: key, Status: status, Times: times}
}

func get(key string, status, times int) *testenv.Fault {
	return &testenv.Fault{Method: http.MethodGet, Key: key, Status: status, Times: times}
}

// fixed returns faults that do not depend on the snapshot, new ones at
// every call (a Fault counts its hits).
func fixed(method, key string, status, times int) func(string) []*testenv.Fault {
	return func(string) []*testenv.Fault {
		return []*testenv.Fault{{Method: method, Key: key, Status: status, Times: times}}
	}
}

// commitFaults are the faults of the commit that ends a compaction.
// "manifest/manifest-" also matches manifest lists; the first write it
// meets is a manifest's.
func commitFaults() []namedFault {
	return []namedFault{
		{name: "first manifest PUT denied", faults: fixed(http.MethodPut, "manifest/manifest-", 403, 1), want: failed},
		{name: "every manifest PUT denied", faults: fixed(http.MethodPut, "manifest/manifest-", 403, 0), want: failed},
		{name: "manifest PUT 500 once, retried", faults: fixed(http.MethodPut, "manifest/manifest-", 500, 1), want: succeeded},
		{name: "manifest list PUT denied", faults: fixed(http.MethodPut, "manifest/manifest-list-", 403, 0), want: failed},
		{name: "manifest list PUT 500 on every retry", faults: fixed(http.MethodPut, "manifest/manifest-list-", 500, 0), want: failed},
		{name: "snapshot PUT denied", faults: func(s string) []*testenv.Fault { return []*testenv.Fault{put(s, 403, 0)} }, want: failed},
		{name: "snapshot PUT 500 on every retry", faults: func(s string) []*testenv.Fault { return []*testenv.Fault{put(s, 500, 0)} }, want: failed},
		{name: "snapshot PUT 500 once, retried", faults: func(s string) []*testenv.Fault { return []*testenv.Fault{put(s, 500, 1)} }, want: succeeded},
		{name: "snapshot PUT applied, every answer lost", faults: func(s string) []*testenv.Fault {
			return []*testenv.Fault{{Method: http.MethodPut, Key: s, After: true, Status: 500}}
		}, want: succeeded},
		{name: "snapshot PUT applied, answers and check GET lost", faults: func(s string) []*testenv.Fault {
			return []*testenv.Fault{{Method: http.MethodPut, Key: s, After: true, Status: 500}, get(s, 500, 0)}
		}, want: unknown},
		{name: "LATEST hint PUT denied", faults: fixed(http.MethodPut, "snapshot/LATEST", 403, 0), want: succeeded},
	}
}

// rewriteFaults are the faults of a compaction's rewrite.
func rewriteFaults() []namedFault {
	return []namedFault{
		{name: "first data PUT denied", faults: fixed(http.MethodPut, "/bucket-", 403, 1), want: failed},
		{name: "every data PUT denied", faults: fixed(http.MethodPut, "/bucket-", 403, 0), want: failed},
		// Data files are streamed (fileio.Create): the S3 client retries
		// each request of the upload with its buffered body.
		{name: "data PUT 500 once, retried", faults: fixed(http.MethodPut, "/bucket-", 500, 1), want: succeeded},
		{name: "data PUT 500 on every retry", faults: fixed(http.MethodPut, "/bucket-", 500, 0), want: failed},
		{name: "data GET denied", faults: fixed(http.MethodGet, "/bucket-", 403, 0), want: failed},
		{name: "data GET 500 once, retried", faults: fixed(http.MethodGet, "/bucket-", 500, 1), want: succeeded},
		{name: "index PUT denied", faults: fixed(http.MethodPut, "index/", 403, 0), want: failed, only: "dv"},
		{name: "index manifest PUT denied", faults: fixed(http.MethodPut, "manifest/index-manifest-", 403, 0), want: failed, only: "dv"},
	}
}

// --- Compaction and manifest compaction --------------------------------------

// maintOp is the operation under faults: Compact (full or minor) or
// CompactManifests.
type maintOp struct {
	name string
	run  func(ft *faultTable, fio *fileio.FileIO) (int64, error)
	// newRows: what a snapshot it creates reads, given the base.
	newRows func(b *faultBase) (rows, all []string)
	// names: the layout compared with the uninterrupted run's includes
	// file names (the operation rewrites no data file).
	names bool
	// check checks the final layout.
	check func(t *testing.T, layout []string)
}

func compactOp(full bool) *maintOp {
	name := "minor"
	if full {
		name = "full"
	}
	return &maintOp{
		name: name,
		run: func(ft *faultTable, fio *fileio.FileIO) (int64, error) {
			return compaction.Compact(ft.ctx, fio, ft.b.ts, "compactor", compaction.Options{Full: full})
		},
		// A compaction of a deletion-vector table brings level 0 up: its
		// batch reads see every row.
		newRows: func(b *faultBase) ([]string, []string) { return b.all[b.latest()], b.all[b.latest()] },
	}
}

func compactManifestsOp() *maintOp {
	return &maintOp{
		name: "manifests",
		run: func(ft *faultTable, fio *fileio.FileIO) (int64, error) {
			c, err := commit.New(fio, ft.b.ts, "manifest-compactor")
			if err != nil {
				return 0, err
			}
			defer c.Close()
			return c.CompactManifests(ft.ctx)
		},
		newRows: func(b *faultBase) ([]string, []string) { return b.rows[b.latest()], b.all[b.latest()] },
		names:   true,
	}
}

// opRef is an uninterrupted run on a copy of the base: the requests of
// its first run, how many snapshots the job took (running the operation
// until it returns 0) and the final layout.
type opRef struct {
	log    []string
	n      int
	layout []string
}

// finish runs op until it does nothing and returns how many snapshots it
// created.
func (ft *faultTable) finish(op *maintOp) int {
	ft.t.Helper()
	for n := 0; ; n++ {
		id, err := op.run(ft, ft.dio)
		if err != nil {
			ft.t.Fatalf("%s without faults: %v", op.name, err)
		}
		if id == 0 {
			return n
		}
		if n == 3 {
			ft.t.Fatalf("%s does not converge: snapshot %d", op.name, id)
		}
	}
}

func refRun(t *testing.T, b *faultBase, op *maintOp) *opRef {
	t.Helper()
	ft := b.clone(t)
	before := ft.layout(op.names)
	ft.proxy.TakeLog()
	id, err := op.run(ft, ft.fio)
	if err != nil || id != b.latest()+1 {
		t.Fatalf("uninterrupted %s: snapshot %d, %v; want %d", op.name, id, err, b.latest()+1)
	}
	ref := &opRef{log: ft.proxy.TakeLog()}
	ref.n = 1 + ft.finish(op)
	rows, all := op.newRows(b)
	ids := ft.checkSnapshots("uninterrupted", ref.n, rows, all)
	ref.layout = ft.layout(op.names)
	if op.check != nil {
		op.check(t, ref.layout)
	}
	ft.checkAll("uninterrupted", ids)
	ft.clean(ft.dio, ids, true)
	var classes []string
	for _, p := range requests(ref.log, isPut) {
		classes = append(classes, fileClass(p))
	}
	t.Logf("%s %s: %d snapshots, PUTs %v\n  layout before %v\n  after %v", b.kind.name, op.name, ref.n, classes, before, ref.layout)
	return ref
}

// levelsCheck checks the levels after a finished compaction: after a full
// compaction every file of a primary-key table is on the highest level,
// after a minor one level 0 is empty and the highest level and level 1
// are used; append files stay on level 0.
func levelsCheck(kind faultKind, full bool) func(t *testing.T, layout []string) {
	return func(t *testing.T, layout []string) {
		t.Helper()
		levels := map[string]int{}
		for _, l := range layout {
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[1], "L") {
				levels[f[1]]++
			}
		}
		want := []string{"L0"}
		switch {
		case kind.pk && full:
			want = []string{fmt.Sprintf("L%d", maxLevel)}
		case kind.pk:
			want = []string{"L1", fmt.Sprintf("L%d", maxLevel)}
		}
		if got := slices.Sorted(maps.Keys(levels)); !slices.Equal(got, want) {
			t.Fatalf("levels after the compaction %v, want %v (layout %v)", got, want, layout)
		}
	}
}

// underFaults injects faults (or arms the crash proxy with arm), runs fn,
// and fails the test unless the faults met a request (or the armed request
// was reached). It returns the key of the request the crash proxy failed
// ("" when not armed).
func (ft *faultTable) underFaults(t *testing.T, faults []*testenv.Fault, arm func(*crashProxy), fn func()) string {
	t.Helper()
	ft.proxy.Inject(faults...)
	if arm != nil {
		arm(ft.crash)
	}
	fn()
	failedKey := ft.crash.disarm()
	log := ft.proxy.Clear()
	hits := 0
	for _, f := range faults {
		hits += f.Hits()
	}
	switch {
	case arm == nil && hits == 0:
		t.Fatalf("no request met the faults; requests %v", log)
	case arm != nil && failedKey == "":
		t.Fatalf("the run made fewer requests than the one to fail; requests %v", log)
	}
	return failedKey
}

// runOpFault runs op under faults (or with the crash proxy armed by arm),
// checks its outcome and the table, then finishes the job without faults
// and cleans orphans, checking the table after each step. all reads every
// snapshot after the faults and after the cleanup (otherwise the base's
// files are checked to be there and the new snapshots are read).
func runOpFault(t *testing.T, b *faultBase, op *maintOp, ref *opRef, faults []*testenv.Fault, arm func(*crashProxy),
	want outcome, errHas string, all bool) {
	t.Helper()
	ft := b.clone(t)
	ft.proxy.TakeLog()
	var id int64
	var err error
	failedKey := ft.underFaults(t, faults, arm, func() { id, err = op.run(ft, ft.fio) })
	switch {
	case arm != nil && errHas == "":
		errHas = failedKey
	}
	t.Logf("%s under faults: snapshot %d, error %v", op.name, id, err)
	checkOutcome(t, want, id, b.latest()+1, err, errHas)
	published := 0
	if want != failed {
		published = 1
	}
	rows, allRows := op.newRows(b)
	ids := ft.checkSnapshots("after the faults", published, rows, allRows)
	ft.checkIntact("after the faults", ids)
	if all {
		for _, id := range ids {
			checkRead(t, ft.dio, ft.cache, id, ft.rows[id], ft.all[id])
		}
	}
	leftovers := map[string]int{}
	for p := range ft.stored() {
		if !slices.Contains(ft.b.files, p) && !slices.Contains(ids, snapshotID(p)) && !keptMeta(p) {
			leftovers[fileClass(p)]++
		}
	}
	t.Logf("files the run added: %v", leftovers)

	// The next run finishes the job.
	n := ft.finish(op)
	if published+n != ref.n {
		t.Fatalf("the rerun created %d snapshots after %d published under faults; the uninterrupted job took %d", n, published, ref.n)
	}
	ids = ft.checkSnapshots("after the rerun", ref.n, rows, allRows)
	if got := ft.layout(op.names); !slices.Equal(got, ref.layout) {
		t.Fatalf("layout after the rerun:\n  %s\nwant (uninterrupted):\n  %s", strings.Join(got, "\n  "), strings.Join(ref.layout, "\n  "))
	}
	ft.clean(ft.dio, ids, all)
}

// opCases runs the named faults, then, for every PUT k of the
// uninterrupted run, the run stopped there: with crash nothing after the
// k-th PUT reaches the store (the process died); otherwise only that PUT
// fails (403) and the run goes on to fail and clean up. The PUTs after the
// snapshot's are the LATEST hint's, whose failure does not fail the run.
func opCases(t *testing.T, b *faultBase, op *maintOp, named []namedFault, crash bool) {
	ref := refRun(t, b, op)
	snap := "snapshot/snapshot-" + strconv.FormatInt(b.latest()+1, 10)
	for _, nf := range named {
		if nf.only != "" && nf.only != b.kind.name {
			continue
		}
		t.Run(strings.ReplaceAll(nf.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			faults := nf.faults(snap)
			runOpFault(t, b, op, ref, faults, nil, nf.want, faults[0].Key, true)
		})
	}
	puts := requests(ref.log, isPut)
	at := slices.IndexFunc(puts, func(p string) bool { return strings.HasSuffix(p, snap) })
	if at < 0 {
		t.Fatalf("the uninterrupted run did not write %s: %v", snap, puts)
	}
	for k := range puts {
		want := failed
		if k > at {
			want = succeeded
		}
		name := fmt.Sprintf("error_at_PUT_%d_%s", k+1, fileClass(puts[k]))
		errHas := "" // runOpFault: the key of the PUT failed
		if crash {
			// The error may come from any request after the crash.
			name, errHas = "crash"+strings.TrimPrefix(name, "error"), "StatusCode: 403"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			arm := func(c *crashProxy) { c.arm(isPut, k+1, crash) }
			runOpFault(t, b, op, ref, nil, arm, want, errHas, false)
		})
	}
}

// TestCompactFaults: compaction.Compact, full and minor, of a primary-key
// table (2 buckets, 2 partitions, two level-0 runs over the highest level
// in each bucket, updates and deletes), of the same table with deletion
// vectors and of a bucket-unaware append table, under named object-store
// faults and stopped at each PUT of an uninterrupted run. Every case checks
// that the run returned the expected outcome without panicking, that the
// table has the base's snapshots and at most one new COMPACT snapshot, that
// the base's files are all there and the new snapshot reads the base's
// rows; that a rerun without faults finishes the job with the layout of an
// uninterrupted run; and that orphan cleanup then removes exactly the
// unreferenced files and leaves every snapshot reading its rows (all
// snapshots are read after the named faults; after the k-th PUT, the base's
// files are checked to be there and the new snapshots are read).
func TestCompactFaults(t *testing.T) {
	bucket := testenv.MinIO(t)
	kindPK, kindDV, kindAppend := faultKinds()
	bases := map[string]*faultBase{}
	for _, kind := range []faultKind{kindPK, kindDV, kindAppend} {
		bases[kind.name] = buildBase(t, bucket, "base-"+kind.name, kind, false)
	}
	// Each table is stopped at each PUT of a full and of a minor
	// compaction, once crashing there and once failing only that PUT; the
	// named faults are spread over the tables.
	for _, g := range []struct {
		kind  faultKind
		full  bool
		named []namedFault
		crash bool
	}{
		{kindPK, true, nil, false},
		{kindPK, false, append(rewriteFaults(), commitFaults()...), true},
		{kindDV, true, nil, true},
		{kindDV, false, rewriteFaults(), false},
		{kindAppend, true, rewriteFaults(), false},
		{kindAppend, false, nil, true},
	} {
		op := compactOp(g.full)
		op.check = levelsCheck(g.kind, g.full)
		t.Run(g.kind.name+"/"+op.name, func(t *testing.T) {
			t.Parallel()
			opCases(t, bases[g.kind.name], op, g.named, g.crash)
		})
	}
}

// TestCompactManifestsFaults: commit.Committer.CompactManifests of the
// primary-key table under the commit's named faults and stopped at each PUT
// of an uninterrupted run (crashing there, or failing only that PUT), with
// the checks of TestCompactFaults; the new snapshot reads what the base's
// latest reads, and the live files keep their names and levels.
func TestCompactManifestsFaults(t *testing.T) {
	bucket := testenv.MinIO(t)
	kindPK, _, _ := faultKinds()
	b := buildBase(t, bucket, "base-"+kindPK.name, kindPK, false)
	op := compactManifestsOp()
	op.check = func(t *testing.T, layout []string) {
		if got := layout[len(layout)-2:]; !slices.Equal(got, []string{"manifests=1", "manifests=0"}) {
			t.Fatalf("manifest lists after CompactManifests hold %v manifests, want 1 and 0", got)
		}
	}
	t.Run("named", func(t *testing.T) {
		t.Parallel()
		opCases(t, b, op, commitFaults(), false)
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		opCases(t, b, op, nil, true)
	})
}

// --- Orphan cleanup -----------------------------------------------------------

// orphanRef is an uninterrupted cleanup on a copy of the base.
type orphanRef struct {
	log     []string
	deleted []string
	final   []string
}

func orphanRefRun(t *testing.T, b *faultBase) *orphanRef {
	t.Helper()
	ft := b.clone(t)
	ft.proxy.TakeLog()
	ft.clean(ft.fio, b.ids, true)
	ref := &orphanRef{log: ft.proxy.TakeLog(), final: storedFiles(t, ft.dio)}
	for _, p := range b.files {
		if !slices.Contains(ref.final, p) {
			ref.deleted = append(ref.deleted, p)
		}
	}
	classes := map[string]int{}
	for _, p := range ref.deleted {
		classes[fileClass(p)]++
	}
	want := []string{"data", "index", "index-manifest", "manifest", "manifest-list"}
	if got := slices.Sorted(maps.Keys(classes)); !slices.Equal(got, want) {
		t.Fatalf("the base's orphans are of kinds %v, want %v", got, want)
	}
	t.Logf("orphans %v; %d LISTs, %d GETs, %d DELETEs", classes, len(requests(ref.log, isList)),
		len(requests(ref.log, isObjectGet)), len(requests(ref.log, isDelete)))
	return ref
}

// runOrphanFault runs orphan.Clean under faults and checks: with want
// "abort", that it failed and deleted nothing; with "ok", that it did the
// job; with "delete", that it failed and deleted only orphans. Then a rerun
// without faults must end with the files of the uninterrupted run.
func runOrphanFault(t *testing.T, b *faultBase, ref *orphanRef, faults []*testenv.Fault, arm func(*crashProxy), want string) {
	t.Helper()
	ft := b.clone(t)
	var res orphan.Result
	var err error
	ft.underFaults(t, faults, arm, func() {
		res, err = orphan.Clean(ft.ctx, ft.fio, time.Minute, orphan.Options{Now: time.Now().Add(time.Hour)})
	})
	t.Logf("orphan.Clean under faults: %d deleted, error %v", len(res.Deleted), err)
	stored := storedFiles(t, ft.dio)
	switch want {
	case "ok":
		if err != nil || !slices.Equal(res.Deleted, ref.deleted) {
			t.Fatalf("orphan.Clean under faults: deleted %v, %v; want %v", res.Deleted, err, ref.deleted)
		}
	case "abort":
		if err == nil {
			t.Fatalf("orphan.Clean under faults succeeded (deleted %v), want an error", res.Deleted)
		}
		if !slices.Equal(stored, b.files) {
			t.Fatalf("orphan.Clean failed to read and deleted files: %v", diffLines(stored, b.files))
		}
	default: // a deletion failed
		if err == nil {
			t.Fatalf("orphan.Clean under faults succeeded (deleted %v), want an error", res.Deleted)
		}
		for _, p := range ref.final {
			if !slices.Contains(stored, p) {
				t.Fatalf("orphan.Clean under faults deleted %s, which is not an orphan", p)
			}
		}
	}
	res, err = orphan.Clean(ft.ctx, ft.dio, time.Minute, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("orphan.Clean without faults: %v", err)
	}
	final := storedFiles(t, ft.dio)
	if !slices.Equal(final, ref.final) {
		t.Fatalf("files after the rerun: %s", diffLines(final, ref.final))
	}
	var rest []string // what the rerun had left to delete
	for _, p := range stored {
		if !slices.Contains(final, p) {
			rest = append(rest, p)
		}
	}
	if !slices.Equal(res.Deleted, rest) {
		t.Fatalf("the rerun reports deleting %v, want %v", res.Deleted, rest)
	}
}

// TestOrphanCleanFaults: orphan.Clean of a deletion-vector table with the
// leftovers of a failed compaction (data, index, manifest, manifest list
// and index manifest files). A failing LIST or GET of metadata (every LIST
// and every GET of an uninterrupted run in turn, and named ones: schema,
// snapshot, manifest list, manifest, index manifest) aborts the run with an
// error and deletes nothing; failing DELETEs (each in turn, every one, or a
// crash at one) fail the run after deleting only orphans; 500s answered
// once are retried. After the named and the DELETE cases, a cleanup without
// faults ends with exactly the files of an uninterrupted one, whose
// snapshots read their rows.
func TestOrphanCleanFaults(t *testing.T) {
	bucket := testenv.MinIO(t)
	_, kindDV, _ := faultKinds()
	b := buildBase(t, bucket, "base-orphans", kindDV, true)
	ref := orphanRefRun(t, b)
	// Metadata files of the base to fail the reads of.
	s3, err := func() (*snapshot.Snapshot, error) {
		fio, err := fileio.Open(context.Background(), withPath(t, bucket, b.root))
		if err != nil {
			return nil, err
		}
		defer fio.Close()
		return snapshot.NewManager(fio).Get(context.Background(), 3)
	}()
	if err != nil {
		t.Fatal(err)
	}
	var aManifest, anIndexManifest string
	for _, p := range b.files {
		switch {
		case b.used[p] && fileClass(p) == "manifest" && aManifest == "":
			aManifest = p
		case b.used[p] && fileClass(p) == "index-manifest":
			anIndexManifest = p
		}
	}
	named := []struct {
		name   string
		faults []*testenv.Fault
		want   string
	}{
		{"every LIST denied", []*testenv.Fault{get("?list=", 403, 0)}, "abort"},
		{"schema GET denied", []*testenv.Fault{get("schema/schema-0", 403, 0)}, "abort"},
		{"snapshot GET denied", []*testenv.Fault{get("snapshot/snapshot-3", 403, 0)}, "abort"},
		{"snapshot GET 500 on every retry", []*testenv.Fault{get("snapshot/snapshot-3", 500, 0)}, "abort"},
		{"manifest list GET denied", []*testenv.Fault{get(manifest.Path(s3.BaseManifestList), 403, 0)}, "abort"},
		{"manifest GET denied", []*testenv.Fault{get(aManifest, 403, 0)}, "abort"},
		{"manifest GET 500 once, retried", []*testenv.Fault{get(aManifest, 500, 1)}, "ok"},
		{"index manifest GET denied", []*testenv.Fault{get(anIndexManifest, 403, 0)}, "abort"},
		{"every DELETE denied", []*testenv.Fault{{Method: http.MethodDelete, Status: 403}}, "delete"},
		{"a DELETE 500 once, retried", []*testenv.Fault{{Method: http.MethodDelete, Status: 500, Times: 1}}, "ok"},
		{"every HEAD denied", []*testenv.Fault{{Method: http.MethodHead, Status: 403}}, "delete"},
	}
	for _, nf := range named {
		t.Run(strings.ReplaceAll(nf.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			runOrphanFault(t, b, ref, nf.faults, nil, nf.want)
		})
	}
	// Each LIST and each GET (all of metadata) in turn, one after the
	// other on one copy, since each must leave it as it was; the rerun is
	// left to the named cases.
	t.Run("each_read_denied", func(t *testing.T) {
		t.Parallel()
		ft := b.clone(t)
		for _, r := range []struct {
			what   string
			counts func(method, key string) bool
		}{{"LIST", isList}, {"GET", isObjectGet}} {
			for k, key := range requests(ref.log, r.counts) {
				name := fmt.Sprintf("%s_%d", r.what, k+1)
				if r.what == "GET" {
					name += "_" + fileClass(key)
				}
				t.Run(name, func(t *testing.T) {
					ft.crash.arm(r.counts, k+1, false)
					res, err := orphan.Clean(ft.ctx, ft.fio, time.Minute, orphan.Options{Now: time.Now().Add(time.Hour)})
					if ft.crash.disarm() == "" {
						t.Fatalf("orphan.Clean made fewer than %d %s requests", k+1, r.what)
					}
					if err == nil {
						t.Fatalf("orphan.Clean under faults succeeded (deleted %v), want an error", res.Deleted)
					}
					if stored := storedFiles(t, ft.dio); !slices.Equal(stored, b.files) {
						t.Fatalf("orphan.Clean failed to read and deleted files: %v", diffLines(stored, b.files))
					}
				})
			}
		}
	})
	// Each DELETE in turn; a crash at the first, middle and last.
	deletes := len(requests(ref.log, isDelete))
	for k := range deletes {
		t.Run(fmt.Sprintf("DELETE_%d_denied", k+1), func(t *testing.T) {
			t.Parallel()
			runOrphanFault(t, b, ref, nil, func(c *crashProxy) { c.arm(isDelete, k+1, false) }, "delete")
		})
	}
	for _, k := range slices.Compact([]int{1, (deletes + 1) / 2, deletes}) {
		t.Run(fmt.Sprintf("crash_at_DELETE_%d", k), func(t *testing.T) {
			t.Parallel()
			runOrphanFault(t, b, ref, nil, func(c *crashProxy) { c.arm(isDelete, k, true) }, "delete")
		})
	}
}
