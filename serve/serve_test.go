package serve_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
)

const token = "s3cret"

// newTable creates db.t (k INT NOT NULL, n BIGINT) with opts (a primary key
// on k when pk) in a fresh warehouse and returns its path.
func newTable(t testing.TB, pk bool, opts map[string]string) string {
	t.Helper()
	wh := t.TempDir()
	newTableAt(t, wh, pk, opts)
	return filepath.Join(wh, "db.db", "t")
}

// newTableAt creates db.t in the warehouse wh (a path or URL).
func newTableAt(t testing.TB, wh string, pk bool, opts map[string]string) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Open(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	o := map[string]string{"bucket": "2", "realtime.enabled": "true", "realtime.provider": "flight"}
	for k, v := range opts {
		o[k] = v
	}
	k := types.Int()
	k.Nullable = false
	s := catalog.Schema{Fields: []types.DataField{types.Field(0, "k", k), types.Field(1, "n", types.BigInt())}, Options: o}
	if pk {
		s.PrimaryKeys = []string{"k"}
	}
	if err := cat.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
		t.Fatal(err)
	}
}

func openTable(t testing.TB, path string) *paimon.Table {
	t.Helper()
	tb, err := paimon.OpenTable(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// start serves path on a loopback port and dials it with dopts; the
// server is shut down when the test ends (unless the test did).
func start(t testing.TB, path string, cfg serve.Config, dopts ...serve.DialOption) (*serve.Server, *serve.Client) {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = token
	}
	if cfg.CommitInterval == 0 {
		cfg.CommitInterval = -1
	}
	srv, err := serve.New(openTable(t, path), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	c, err := serve.Dial(srv.Location(), cfg.Token, dopts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

// kn builds a batch (k, n[, _ROW_KIND]) ; kinds nil means all +I.
func kn(ks []int32, ns []int64, kinds []string) arrow.RecordBatch {
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}
	if kinds != nil {
		fields = append(fields, arrow.Field{Name: "_ROW_KIND", Type: arrow.BinaryTypes.String})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(ks, nil)
	b.Field(1).(*array.Int64Builder).AppendValues(ns, nil)
	if kinds != nil {
		b.Field(2).(*array.StringBuilder).AppendValues(kinds, nil)
	}
	return b.NewRecordBatch()
}

func keys(ks ...int32) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(ks, nil)
	return b.NewRecordBatch()
}

// rowsOf renders (k, n) rows as "k n", sorted when sorted.
func rowsOf(t testing.TB, recs []arrow.RecordBatch, sorted bool) []string {
	t.Helper()
	out := []string{}
	for _, r := range recs {
		ki, ni := r.Schema().FieldIndices("k"), r.Schema().FieldIndices("n")
		for i := range int(r.NumRows()) {
			s := fmt.Sprint(r.Column(ki[0]).(*array.Int32).Value(i))
			if len(ni) == 1 {
				if n := r.Column(ni[0]).(*array.Int64); n.IsNull(i) {
					s += " null"
				} else {
					s += fmt.Sprint(" ", n.Value(i))
				}
			}
			out = append(out, s)
		}
	}
	if sorted {
		slices.Sort(out)
	}
	return out
}

func collect(t testing.TB, seq func(func(arrow.RecordBatch, error) bool)) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	t.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
	})
	return out
}

func mustProgress(t testing.TB, c *serve.Client) serve.ProgressResult {
	t.Helper()
	p, err := c.Progress(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func put(t testing.TB, c *serve.Client, rec arrow.RecordBatch) {
	t.Helper()
	defer rec.Release()
	n, err := c.Put(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if n != rec.NumRows() {
		t.Fatalf("put acknowledged %d rows of %d", n, rec.NumRows())
	}
}

// views reads the table four ways and checks they agree: the server's
// union (DoGet), a union read from another table handle (OpenUnion:
// committed snapshot + portions merged here), and lookups of keys over
// Flight. It returns the union rows, sorted.
func views(t *testing.T, c *serve.Client, path string, lookup []int32) []string {
	t.Helper()
	ctx := context.Background()
	srvRows := rowsOf(t, collect(t, c.Read(ctx, serve.Ticket{})), true)
	u, err := serve.OpenUnion(ctx, openTable(t, path), serve.UnionOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if u.Fallback {
		t.Fatalf("fallback: %v", u.Reason)
	}
	remote := rowsOf(t, collect(t, u.Records(ctx)), true)
	if !slices.Equal(srvRows, remote) {
		t.Errorf("server union %v, remote union %v", srvRows, remote)
	}
	if lookup != nil {
		kb := keys(lookup...)
		defer kb.Release()
		rec, err := c.Lookup(ctx, kb)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		var want []string
		for _, r := range srvRows {
			for _, k := range lookup {
				if strings.HasPrefix(r, fmt.Sprint(k, " ")) {
					want = append(want, r)
				}
			}
		}
		slices.Sort(want)
		if got := rowsOf(t, []arrow.RecordBatch{rec}, true); !slices.Equal(got, want) {
			t.Errorf("lookup %v: %v, want %v", lookup, got, want)
		}
	}
	return srvRows
}

// TestServeEngines: rows put over Flight are read back exactly by the
// server's union, by a union in another table handle (committed snapshot
// + the real-time portion merged locally) and by lookups, for append and
// every primary-key merge engine, before and after commits and a full
// compaction, and after a server restart.
func TestServeEngines(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		pk    bool
		opts  map[string]string
		want1 []string // after put 1 (uncommitted)
		want2 []string // after commit + put 2 (mixed)
	}{
		{"append", false, map[string]string{"bucket-key": "k"}, []string{"1 10", "2 20", "3 30"}, []string{"1 10", "1 5", "2 20", "3 30", "3 30", "4 40"}},
		{"deduplicate", true, nil, []string{"1 10", "2 20", "3 30"}, []string{"1 5", "2 20", "4 40"}},
		{"deletion vectors", true, map[string]string{"deletion-vectors.enabled": "true"}, []string{"1 10", "2 20", "3 30"}, []string{"1 5", "2 20", "4 40"}},
		{"aggregation", true, map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "aggregation.remove-record-on-delete": "true"},
			[]string{"1 10", "2 20", "3 30"}, []string{"1 15", "2 20", "4 40"}},
		{"partial-update", true, map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
			[]string{"1 10", "2 20", "3 30"}, []string{"1 5", "2 20", "4 40"}},
		{"first-row", true, map[string]string{"merge-engine": "first-row", "ignore-delete": "true"},
			[]string{"1 10", "2 20", "3 30"}, []string{"1 10", "2 20", "3 30", "4 40"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newTable(t, tc.pk, tc.opts)
			srv, c := start(t, path, serve.Config{})
			put(t, c, kn([]int32{1, 2, 3}, []int64{10, 20, 30}, nil))
			var lk []int32
			if tc.pk {
				lk = []int32{1, 3, 9}
			}
			if got := views(t, c, path, lk); !slices.Equal(got, tc.want1) {
				t.Errorf("before commit: %v, want %v", got, tc.want1)
			}
			// Deletion-vector and first-row writers compact level 0 at every
			// commit: the last snapshot is that COMPACT snapshot.
			wantID := int64(1)
			if tc.opts["deletion-vectors.enabled"] == "true" || tc.opts["merge-engine"] == "first-row" {
				wantID = 2
			}
			id, err := c.Commit(ctx)
			if err != nil || id != wantID {
				t.Fatalf("commit: %d %v, want snapshot %d", id, err, wantID)
			}
			kinds := []string{"+U", "-D", "+I"}
			if !tc.pk {
				kinds = nil
			}
			put(t, c, kn([]int32{1, 3, 4}, []int64{5, 30, 40}, kinds))
			if got := views(t, c, path, lk); !slices.Equal(got, tc.want2) {
				t.Errorf("after commit + put: %v, want %v", got, tc.want2)
			}
			// The real-time portion: snapshot 1 and exactly the rows put
			// since, with their kinds, above the committed ends.
			snap, portions, err := c.Portions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			latest := mustProgress(t, c).SnapshotID // 1, or 2 when level 0 was compacted in a COMPACT snapshot
			var mem []string
			for _, p := range portions {
				end, ok := 0, false
				for _, e := range mustProgress(t, c).Offsets {
					if e.Bucket == p.PartitionBucket.Bucket {
						end, ok = int(e.End), true
					}
				}
				if !ok || int64(end) != p.CommittedEnd || p.MemoryEnd <= p.CommittedEnd || p.SnapshotID != latest {
					t.Errorf("portion %+v: committed end %d (known %v)", p.PartitionBucket, end, ok)
				}
				for _, r := range p.Rows {
					kind := []int8(nil)
					if i := r.Schema().FieldIndices("_VALUE_KIND"); len(i) == 1 {
						kind = r.Column(i[0]).(*array.Int8).Int8Values()
					}
					for i, row := range rowsOf(t, []arrow.RecordBatch{r}, false) {
						if kind != nil {
							row += fmt.Sprint(" ", kind[i])
						}
						mem = append(mem, row)
					}
					r.Release()
				}
			}
			slices.Sort(mem)
			wantMem := map[string][]string{"append": {"1 5", "3 30", "4 40"}, "first-row": {"1 5 2", "4 40 0"}}[tc.name]
			if wantMem == nil {
				wantMem = []string{"1 5 2", "3 30 3", "4 40 0"}
			}
			if snap != latest || latest < 1 || latest > 2 || !slices.Equal(mem, wantMem) {
				t.Errorf("portion above snapshot %d: %v, want snapshot %d and %v", snap, mem, latest, wantMem)
			}
			// Deletion-vector and first-row tables compact level 0 in the
			// same commit (lookup): a COMPACT snapshot may follow the APPEND one.
			if id2, err := c.Commit(ctx); err != nil || id2 <= id {
				t.Fatalf("commit 2: %d %v", id2, err)
			}
			if got := views(t, c, path, lk); !slices.Equal(got, tc.want2) {
				t.Errorf("after commit 2: %v, want %v", got, tc.want2)
			}
			// A full compaction in this process beside the server.
			if tc.pk {
				tb := openTable(t, path)
				if _, err := compaction.Compact(ctx, tb.FileIO(), tb.Schema(), "compactor", compaction.Options{Full: true}); err != nil {
					t.Fatalf("compact: %v", err)
				}
				if got := views(t, c, path, lk); !slices.Equal(got, tc.want2) {
					t.Errorf("after compaction: %v, want %v", got, tc.want2)
				}
			}
			// Restart: the new server adopts the committed progress.
			if err := srv.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			_, c2 := start(t, path, serve.Config{})
			p, err := c2.Progress(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, e := range p.Offsets {
				total += e.End
			}
			want := int64(6)
			if tc.name == "first-row" {
				want = 5 // ignore-delete drops the -D row before it gets an offset
			}
			if total != want {
				t.Errorf("progress after restart: %+v, want %d rows committed", p, want)
			}
			if got := views(t, c2, path, lk); !slices.Equal(got, tc.want2) {
				t.Errorf("after restart: %v, want %v", got, tc.want2)
			}
		})
	}
}

// TestRemoteUnionBatches: a primary-key table whose memory holds several
// put batches, each sorted but later ones with smaller keys, reads the same
// from another table handle (each batch of a portion is a sorted run of its
// own) as the server's union, before and after a commit.
func TestRemoteUnionBatches(t *testing.T) {
	path := newTable(t, true, nil)
	_, c := start(t, path, serve.Config{})
	put(t, c, kn([]int32{5, 7}, []int64{50, 70}, nil))
	put(t, c, kn([]int32{1, 6}, []int64{10, 60}, nil))
	put(t, c, kn([]int32{3, 5}, []int64{30, 55}, nil))
	want := []string{"1 10", "3 30", "5 55", "6 60", "7 70"}
	if got := views(t, c, path, []int32{5, 6}); !slices.Equal(got, want) {
		t.Errorf("three puts: %v, want %v", got, want)
	}
	if _, err := c.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	put(t, c, kn([]int32{9}, []int64{90}, nil))
	put(t, c, kn([]int32{2, 7}, []int64{20, 77}, nil))
	want = []string{"1 10", "2 20", "3 30", "5 55", "6 60", "7 77", "9 90"}
	if got := views(t, c, path, []int32{2, 7}); !slices.Equal(got, want) {
		t.Errorf("after a commit and two puts: %v, want %v", got, want)
	}
}

// TestServeRefusals: calls without or with a wrong token are refused;
// malformed tickets, actions, bodies and batches get InvalidArgument with
// a clear text and change nothing; the server keeps serving after 1,000
// of them.
func TestServeRefusals(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, nil)
	srv, c := start(t, path, serve.Config{})
	put(t, c, kn([]int32{1}, []int64{10}, nil))

	for _, tok := range []string{"", "wrong"} {
		bad, err := serve.Dial(srv.Location(), tok)
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Commit(ctx)
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("token %q: %v, want Unauthenticated", tok, err)
		}
		for _, err := range bad.Read(ctx, serve.Ticket{}) {
			if status.Code(err) != codes.Unauthenticated {
				t.Errorf("token %q read: %v, want Unauthenticated", tok, err)
			}
		}
		bad.Close()
	}

	check := func(what string, err error, text string) {
		t.Helper()
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: %v, want InvalidArgument containing %q", what, err, text)
		}
	}
	read := func(tk serve.Ticket) error {
		for r, err := range c.Read(ctx, tk) {
			if err != nil {
				return err
			}
			r.Release()
		}
		return nil
	}
	check("unknown column", read(serve.Ticket{Columns: []string{"nosuch"}}), "nosuch")
	check("bad where", read(serve.Ticket{Where: "k >"}), "syntax")
	check("unknown kind", read(serve.Ticket{Kind: "scan"}), `unknown ticket kind "scan"`)
	wrong := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}}, nil))
	wrong.Field(0).(*array.StringBuilder).Append("x")
	wr := wrong.NewRecordBatch()
	wrong.Release()
	_, err := c.Put(ctx, wr)
	wr.Release()
	check("wrong schema", err, "k")
	nulls := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	nulls.Field(0).(*array.Int32Builder).AppendNull()
	nulls.Field(1).(*array.Int64Builder).Append(1)
	nr := nulls.NewRecordBatch()
	nulls.Release()
	_, err = c.Put(ctx, nr)
	nr.Release()
	check("null key", err, "null")
	sk := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil))
	sk.Field(0).(*array.Int64Builder).Append(1)
	skr := sk.NewRecordBatch()
	sk.Release()
	_, err = c.Lookup(ctx, skr)
	skr.Release()
	check("lookup by a value column", err, "")

	// 1,000 malformed requests of several shapes, then the server still serves.
	raw := serve.RawClient(c)
	var spent [4]time.Duration
	defer func() { t.Logf("malformed requests by kind: %v", spent) }()
	for i := range 1000 {
		t0 := time.Now()
		var err error
		switch i % 4 {
		case 0:
			err = raw.Get(ctx, []byte(fmt.Sprintf(`{"kind":%d`, i)))
		case 1:
			err = raw.Action(ctx, "lookup", []byte(fmt.Sprintf("garbage %d", i)))
		case 2:
			err = raw.Action(ctx, fmt.Sprintf("nosuch-%d", i), nil)
		case 3:
			err = raw.PutBytes(ctx, []byte(fmt.Sprintf("not arrow %d", i)))
		}
		spent[i%4] += time.Since(t0)
		if c := status.Code(err); c != codes.InvalidArgument {
			t.Fatalf("malformed request %d: %v, want InvalidArgument", i, err)
		}
	}
	if got := views(t, c, path, []int32{1}); !slices.Equal(got, []string{"1 10"}) {
		t.Errorf("after refusals: %v, want [1 10]", got)
	}
}

// TestUnionFallback: without a server, OpenUnion fails with
// ErrProviderUnavailable, or reads the committed rows and says so.
func TestUnionFallback(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, nil)
	srv, c := start(t, path, serve.Config{})
	put(t, c, kn([]int32{1, 2}, []int64{10, 20}, nil))
	if _, err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	put(t, c, kn([]int32{3}, []int64{30}, nil))
	if err := srv.Shutdown(ctx); err != nil { // commits the 3rd row and removes the service file
		t.Fatal(err)
	}
	tb := openTable(t, path)
	_, err := serve.OpenUnion(ctx, tb, serve.UnionOptions{Token: token})
	if !errors.Is(err, serve.ErrProviderUnavailable) || !errors.Is(err, serve.ErrNoService) {
		t.Fatalf("no server: %v, want ErrProviderUnavailable and ErrNoService", err)
	}
	u, err := serve.OpenUnion(ctx, tb, serve.UnionOptions{Token: token, Fallback: true})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Fallback || !errors.Is(u.Reason, serve.ErrNoService) || u.SnapshotID != 2 {
		t.Errorf("fallback %v reason %v snapshot %d", u.Fallback, u.Reason, u.SnapshotID)
	}
	if got := rowsOf(t, collect(t, u.Records(ctx)), true); !slices.Equal(got, []string{"1 10", "2 20", "3 30"}) {
		t.Errorf("fallback rows %v", got)
	}
	// A recorded server that does not answer.
	if err := serve.WriteService(ctx, tb.FileIO(), serve.Service{Location: "grpc+tcp://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := serve.OpenUnion(cctx, tb, serve.UnionOptions{Token: token}); !errors.Is(err, serve.ErrProviderUnavailable) {
		t.Errorf("dead server: %v, want ErrProviderUnavailable", err)
	}
	// A table without realtime.provider.
	plain := openTable(t, newTable(t, true, map[string]string{"realtime.provider": ""}))
	if _, err := serve.OpenUnion(ctx, plain, serve.UnionOptions{Token: token}); !errors.Is(err, serve.ErrProviderUnavailable) ||
		!strings.Contains(err.Error(), "realtime.provider") {
		t.Errorf("no provider option: %v", err)
	}
	// Columns and filters apply to the union.
	path2 := newTable(t, true, nil)
	_, c2 := start(t, path2, serve.Config{})
	put(t, c2, kn([]int32{1, 2, 3}, []int64{10, 20, 30}, nil))
	u, err = serve.OpenUnion(ctx, openTable(t, path2), serve.UnionOptions{Token: token}, reader.WithWhere("n >= 20"), reader.WithColumns("k"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, collect(t, u.Records(ctx)), true); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("filtered union %v, want [2 3]", got)
	}
}
