package paimon_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// BenchmarkFlightsLookup: point lookups on the 3M-row flights table keyed
// by (origin, destination, date), 8 buckets, written in 30 commits of
// 100,000 rows (the writer's own compactions on), on local disk and MinIO:
// hit and miss, warm (one Table for every lookup: manifest and lookup
// caches kept) and cold (a Table opened for each lookup), hits with the
// lookup cache off (hit-nocache, the table's files decoded for each
// lookup), next to the same key read as a filtered scan. Each sub-benchmark reports p50 and p99 in
// ms besides ns/op:
//
//	go test -run XXX -bench FlightsLookup -benchtime 200x -timeout 30m .
func BenchmarkFlightsLookup(b *testing.B) {
	ctx := context.Background()
	batches, rows := flights.Batches(b, flights.Options{BatchRows: 100_000})
	for _, store := range []string{"local", "minio"} {
		b.Run(store, func(b *testing.B) {
			url := filepath.Join(b.TempDir(), "wh")
			if store == "minio" {
				url = strings.Replace(testenv.MinIO(b), "?", "/wh?", 1)
			}
			table, tableURL := flightsKeyedTable(b, ctx, url, batches)
			b.Logf("%s: %d rows written", store, rows)
			var keys []arrow.RecordBatch
			for i := range 64 {
				bt := batches[(i*7)%len(batches)]
				keys = append(keys, flightKey(bt, (i*7919)%int(bt.NumRows())))
			}
			miss := flightKeyOf("ZZZ", "ZZZ", 1)
			defer miss.Release()
			lc := table.Cache().LookupFiles()
			for _, mode := range []string{"hit-nocache", "hit-warm", "miss-warm", "hit-cold", "miss-cold", "scan-warm"} {
				b.Run(mode, func(b *testing.B) {
					if mode == "hit-nocache" {
						lc.SetMaxBytes(0)
						defer lc.SetMaxBytes(reader.DefaultLookupCacheBytes)
					}
					if mode == "hit-warm" {
						// Warm: every key looked up once before the clock.
						for _, kb := range keys {
							got, err := table.Lookup(ctx, kb)
							if err != nil {
								b.Fatal(err)
							}
							got.Release()
						}
						defer func() {
							st := lc.Stats()
							b.Logf("%s: lookup cache %d files, %.1f MiB kept of %d MiB, %d hits, %d misses", store, st.Files, float64(st.Bytes)/(1<<20), st.MaxBytes>>20, st.Hits, st.Misses)
						}()
					}
					var lat []time.Duration
					for i := 0; b.Loop(); i++ {
						kb, want := keys[i%len(keys)], int64(1)
						if strings.HasPrefix(mode, "miss") {
							kb, want = miss, 0
						}
						t0 := time.Now()
						tb := table
						if strings.HasSuffix(mode, "cold") {
							var err error
							if tb, err = paimon.OpenTable(ctx, tableURL); err != nil {
								b.Fatal(err)
							}
						}
						var got arrow.RecordBatch
						var err error
						if mode == "scan-warm" {
							f, ferr := reader.KeyFilter(tb.Schema(), kb)
							if ferr != nil {
								b.Fatal(ferr)
							}
							p, perr := tb.NewScan(reader.WithFilter(f)).Plan(ctx)
							if perr != nil {
								b.Fatal(perr)
							}
							got, err = reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), memory.DefaultAllocator)
						} else {
							got, err = tb.Lookup(ctx, kb)
						}
						lat = append(lat, time.Since(t0))
						if tb != table {
							tb.Close()
						}
						if err != nil {
							b.Fatal(err)
						}
						if got.NumRows() != want {
							b.Fatalf("%s: %d rows, want %d", mode, got.NumRows(), want)
						}
						got.Release()
					}
					slices.Sort(lat)
					pct := func(p float64) float64 {
						return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
					}
					b.ReportMetric(pct(0.50), "p50-ms")
					b.ReportMetric(pct(0.99), "p99-ms")
				})
			}
			for _, k := range keys {
				k.Release()
			}
		})
	}
}

// flightsKeyedTable writes batches into a new table keyed by (origin,
// destination, date), 8 buckets, one commit per batch, below warehouse
// URL wh; it returns the open table and its URL.
func flightsKeyedTable(b *testing.B, ctx context.Context, wh string, batches []arrow.RecordBatch) (*paimon.Table, string) {
	b.Helper()
	cat, err := catalog.Open(ctx, wh)
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", true); err != nil {
		b.Fatal(err)
	}
	fields := flights.Fields()
	for i := range fields {
		if n := fields[i].Name; n == "origin" || n == "destination" || n == "date" {
			fields[i].Type.Nullable = false
		}
	}
	id := catalog.NewIdentifier("db", "flights")
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: fields, PrimaryKeys: []string{"origin", "destination", "date"},
		Options: map[string]string{"bucket": "8"}}, false); err != nil {
		b.Fatal(err)
	}
	u, q, ok := strings.Cut(wh, "?")
	tableURL := u + "/" + catalog.TablePath(id)
	if ok {
		tableURL += "?" + q
	}
	table, err := paimon.OpenTable(ctx, tableURL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { table.Close() })
	for _, bt := range batches {
		writeCommit(b, table, bt)
	}
	return table, tableURL
}

// flightKey is the key of row i of a flights batch.
func flightKey(bt arrow.RecordBatch, i int) arrow.RecordBatch {
	return flightKeyOf(bt.Column(flights.Origin).(*array.String).Value(i), bt.Column(flights.Destination).(*array.String).Value(i),
		int64(bt.Column(flights.Date).(*array.Timestamp).Value(i)))
}

func flightKeyOf(origin, destination string, date int64) arrow.RecordBatch {
	rb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "origin", Type: arrow.BinaryTypes.String}, {Name: "destination", Type: arrow.BinaryTypes.String},
		{Name: "date", Type: &arrow.TimestampType{Unit: arrow.Microsecond}}}, nil))
	defer rb.Release()
	rb.Field(0).(*array.StringBuilder).Append(origin)
	rb.Field(1).(*array.StringBuilder).Append(destination)
	rb.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(date))
	return rb.NewRecordBatch()
}
