package main

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// workload is one of the table shapes rtbench streams the flights into.
type workload struct {
	name string
	// schema is the table definition (the options get realtime.enabled and
	// the bucket count added by the run).
	schema catalog.Schema
	// primaryKey tables are read back by merging; append tables by counting.
	primaryKey bool
	// build turns one flights batch into a batch of the table's columns.
	// The result is the caller's to release.
	build func(src arrow.RecordBatch) arrow.RecordBatch
	// newModel returns the expected table state, computed in Go.
	newModel func() model
	// follow adds each row's stream position (positionColumn) and follows
	// the table while it is written (follow.go).
	follow bool
}

// model is the state a table must hold after a stream of flights, computed
// in Go from the same rows the table was given, independently of paimon-go.
type model interface {
	// observe adds the rows of one source batch, in stream order.
	observe(c cols, n int)
	// columns are the columns verify reads.
	columns() []string
	// verify compares a read of the whole table (projected to columns)
	// with the model. It returns the number of rows compared and a
	// non-nil error describing the first difference.
	verify(recs iter.Seq2[arrow.RecordBatch, error]) (int64, error)
}

// probe identifies a batch for the freshness probe.
type probe struct {
	// cumRows is the number of rows written up to and including the batch;
	// on a real-time sink the batch's last row has offset cumRows-1 (the
	// stream supplies each row's position in the stream as its offset).
	cumRows int64
	// last is the batch's last row.
	last flightRow
}

type route struct{ origin, destination string }

// newWorkload returns the workload called name; buckets is the bucket count
// of primary-key tables.
func newWorkload(name string, buckets int) (*workload, error) {
	str := types.String()
	key := types.String()
	key.Nullable = false
	bucket := fmt.Sprint(buckets)
	switch name {
	case "append":
		// Flights streamed in date order into a table partitioned by month.
		return &workload{
			name: name,
			schema: catalog.Schema{
				Fields: []types.DataField{
					{Name: "month", Type: str},
					{Name: "date", Type: types.TimestampOf(6)},
					{Name: "delay", Type: types.BigInt()},
					{Name: "distance", Type: types.BigInt()},
					{Name: "origin", Type: str},
					{Name: "destination", Type: str},
				},
				PartitionKeys: []string{"month"},
				// Fixed buckets: the real-time layer serves only those.
				Options: map[string]string{"bucket": bucket, "bucket-key": "origin"},
				Comment: "rtbench append: flights partitioned by month",
			},
			build:    buildAppend,
			newModel: func() model { return &appendModel{months: map[string]int64{}} },
		}, nil
	case "pk-dedupe":
		// The latest flight per route.
		return &workload{
			name: name,
			schema: catalog.Schema{
				Fields: []types.DataField{
					{Name: "origin", Type: key},
					{Name: "destination", Type: key},
					{Name: "date", Type: types.TimestampOf(6)},
					{Name: "delay", Type: types.BigInt()},
					{Name: "distance", Type: types.BigInt()},
				},
				PrimaryKeys: []string{"origin", "destination"},
				Options:     map[string]string{"bucket": bucket, "merge-engine": "deduplicate"},
				Comment:     "rtbench pk-dedupe: latest flight per route",
			},
			primaryKey: true,
			build:      buildDedupe,
			newModel:   func() model { return &dedupeModel{routes: map[route]flightRow{}} },
		}, nil
	case "follow":
		// pk-dedupe with changelog-producer = input and each row's stream
		// position, followed by a stream.Follower while it is written.
		w, err := newWorkload("pk-dedupe", buckets)
		if err != nil {
			return nil, err
		}
		w.name, w.follow = name, true
		w.schema.Fields = append(slices.Clone(w.schema.Fields), types.DataField{Name: positionColumn, Type: types.BigInt()})
		w.schema.Options = maps.Clone(w.schema.Options)
		w.schema.Options["changelog-producer"] = "input"
		w.schema.Comment = "rtbench follow: latest flight per route, changelog followed while written"
		return w, nil
	case "pk-agg":
		// sum(delay), count and max(distance) per route.
		return &workload{
			name: name,
			schema: catalog.Schema{
				Fields: []types.DataField{
					{Name: "origin", Type: key},
					{Name: "destination", Type: key},
					{Name: "delay_sum", Type: types.BigInt()},
					{Name: "flights", Type: types.BigInt()},
					{Name: "distance_max", Type: types.BigInt()},
				},
				PrimaryKeys: []string{"origin", "destination"},
				Options: map[string]string{
					"bucket":                                 bucket,
					"merge-engine":                           "aggregation",
					"fields.delay_sum.aggregate-function":    "sum",
					"fields.flights.aggregate-function":      "sum",
					"fields.distance_max.aggregate-function": "max",
				},
				Comment: "rtbench pk-agg: sum(delay), count and max(distance) per route",
			},
			primaryKey: true,
			build:      buildAgg,
			newModel:   func() model { return &aggModel{routes: map[route]*aggRow{}} },
		}, nil
	}
	return nil, fmt.Errorf("%w: unknown workload %q", errUsage, name)
}

// --- batch builders ---

func buildAppend(src arrow.RecordBatch) arrow.RecordBatch {
	c := colsOf(src)
	n := int(src.NumRows())
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(n * 7)
	// The rows are in date order: compute the month once per month.
	var lo, hi int64 = 1, 0
	var month string
	for i := range n {
		d := int64(c.date.Value(i))
		if d < lo || d >= hi {
			t := time.UnixMicro(d).UTC()
			first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
			lo, hi = first.UnixMicro(), first.AddDate(0, 1, 0).UnixMicro()
			month = first.Format("2006-01")
		}
		b.Append(month)
	}
	months := b.NewArray()
	defer months.Release()
	sc := arrow.NewSchema(append([]arrow.Field{{Name: "month", Type: arrow.BinaryTypes.String, Nullable: true}},
		src.Schema().Fields()...), nil)
	cols := append([]arrow.Array{months}, src.Columns()...)
	return array.NewRecordBatch(sc, cols, int64(n))
}

func buildDedupe(src arrow.RecordBatch) arrow.RecordBatch {
	src.Retain()
	return src
}

func buildAgg(src arrow.RecordBatch) arrow.RecordBatch {
	n := src.NumRows()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(int(n))
	for range n {
		b.UnsafeAppend(1)
	}
	ones := b.NewArray()
	defer ones.Release()
	f := func(name string) arrow.Field {
		return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	sc := arrow.NewSchema([]arrow.Field{
		src.Schema().Field(flights.Origin), src.Schema().Field(flights.Destination),
		f("delay_sum"), f("flights"), f("distance_max"),
	}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{
		src.Column(flights.Origin), src.Column(flights.Destination),
		src.Column(flights.Delay), ones, src.Column(flights.Distance),
	}, n)
}

// --- models ---

// appendModel: every row once; checked by count per month and column sums.
type appendModel struct {
	rows, delaySum, distanceSum int64
	months                      map[string]int64
	monthLo, monthHi            int64
	month                       string
}

func (m *appendModel) observe(c cols, n int) {
	for i := range n {
		d := int64(c.date.Value(i))
		if d < m.monthLo || d >= m.monthHi || m.month == "" {
			t := time.UnixMicro(d).UTC()
			first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
			m.monthLo, m.monthHi, m.month = first.UnixMicro(), first.AddDate(0, 1, 0).UnixMicro(), first.Format("2006-01")
		}
		m.months[m.month]++
		m.delaySum += c.delay.Value(i)
		m.distanceSum += c.distance.Value(i)
	}
	m.rows += int64(n)
}

func (m *appendModel) columns() []string { return []string{"month", "delay", "distance"} }

func (m *appendModel) verify(recs iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	var rows, delaySum, distanceSum int64
	months := map[string]int64{}
	for rec, err := range recs {
		if err != nil {
			return rows, err
		}
		mo := rec.Column(0).(*array.String)
		de := rec.Column(1).(*array.Int64)
		di := rec.Column(2).(*array.Int64)
		for i := range int(rec.NumRows()) {
			months[mo.Value(i)]++
			delaySum += de.Value(i)
			distanceSum += di.Value(i)
		}
		rows += rec.NumRows()
		rec.Release()
	}
	switch {
	case rows != m.rows:
		return rows, fmt.Errorf("read %d rows, wrote %d", rows, m.rows)
	case delaySum != m.delaySum:
		return rows, fmt.Errorf("sum(delay) = %d, want %d", delaySum, m.delaySum)
	case distanceSum != m.distanceSum:
		return rows, fmt.Errorf("sum(distance) = %d, want %d", distanceSum, m.distanceSum)
	}
	for k, want := range m.months {
		if got := months[k]; got != want {
			return rows, fmt.Errorf("month %s has %d rows, want %d", k, got, want)
		}
	}
	if len(months) != len(m.months) {
		return rows, fmt.Errorf("read %d months, wrote %d", len(months), len(m.months))
	}
	return rows, nil
}

// dedupeModel: the last flight written per route.
type dedupeModel struct {
	routes map[route]flightRow
}

func (m *dedupeModel) observe(c cols, n int) {
	for i := range n {
		r := c.row(i)
		m.routes[route{r.origin, r.destination}] = r
	}
}

func (m *dedupeModel) columns() []string {
	return []string{"origin", "destination", "date", "delay", "distance"}
}

func (m *dedupeModel) verify(recs iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	var rows int64
	seen := make(map[route]bool, len(m.routes))
	var firstErr error
	for rec, err := range recs {
		if err != nil {
			return rows, err
		}
		c := colsOfTable(rec)
		for i := range int(rec.NumRows()) {
			got := c.row(i)
			k := route{got.origin, got.destination}
			want, ok := m.routes[k]
			switch {
			case firstErr != nil:
			case !ok:
				firstErr = fmt.Errorf("route %s-%s was never written", k.origin, k.destination)
			case seen[k]:
				firstErr = fmt.Errorf("route %s-%s read twice", k.origin, k.destination)
			case got != want:
				firstErr = fmt.Errorf("route %s-%s: read %+v, want %+v", k.origin, k.destination, got, want)
			}
			seen[k] = true
		}
		rows += rec.NumRows()
		rec.Release()
	}
	if firstErr != nil {
		return rows, firstErr
	}
	if len(seen) != len(m.routes) {
		return rows, fmt.Errorf("read %d routes, wrote %d (missing e.g. %s)", len(seen), len(m.routes), missingRoute(m.routes, seen))
	}
	return rows, nil
}

// colsOfTable gives typed access to a pk-dedupe read (origin, destination,
// date, delay, distance).
func colsOfTable(rec arrow.RecordBatch) cols {
	return cols{
		origin:      rec.Column(0).(*array.String),
		destination: rec.Column(1).(*array.String),
		date:        rec.Column(2).(*array.Timestamp),
		delay:       rec.Column(3).(*array.Int64),
		distance:    rec.Column(4).(*array.Int64),
	}
}

// aggModel: sum(delay), count and max(distance) per route.
type aggModel struct {
	routes map[route]*aggRow
}

type aggRow struct{ delaySum, flights, distanceMax int64 }

func (m *aggModel) observe(c cols, n int) {
	for i := range n {
		k := route{c.origin.Value(i), c.destination.Value(i)}
		a := m.routes[k]
		if a == nil {
			a = &aggRow{distanceMax: c.distance.Value(i)}
			m.routes[k] = a
		}
		a.delaySum += c.delay.Value(i)
		a.flights++
		a.distanceMax = max(a.distanceMax, c.distance.Value(i))
	}
}

func (m *aggModel) columns() []string {
	return []string{"origin", "destination", "delay_sum", "flights", "distance_max"}
}

func (m *aggModel) verify(recs iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	var rows int64
	seen := make(map[route]bool, len(m.routes))
	var firstErr error
	for rec, err := range recs {
		if err != nil {
			return rows, err
		}
		o, d := rec.Column(0).(*array.String), rec.Column(1).(*array.String)
		s, f, x := rec.Column(2).(*array.Int64), rec.Column(3).(*array.Int64), rec.Column(4).(*array.Int64)
		for i := range int(rec.NumRows()) {
			k := route{o.Value(i), d.Value(i)}
			got := aggRow{s.Value(i), f.Value(i), x.Value(i)}
			want := m.routes[k]
			switch {
			case firstErr != nil:
			case want == nil:
				firstErr = fmt.Errorf("route %s-%s was never written", k.origin, k.destination)
			case seen[k]:
				firstErr = fmt.Errorf("route %s-%s read twice", k.origin, k.destination)
			case got != *want:
				firstErr = fmt.Errorf("route %s-%s: read %+v, want %+v", k.origin, k.destination, got, *want)
			}
			seen[k] = true
		}
		rows += rec.NumRows()
		rec.Release()
	}
	if firstErr != nil {
		return rows, firstErr
	}
	if len(seen) != len(m.routes) {
		return rows, fmt.Errorf("read %d routes, wrote %d (missing e.g. %s)", len(seen), len(m.routes), missingRoute(m.routes, seen))
	}
	return rows, nil
}

// missingRoute names one written route that was not read (the smallest).
func missingRoute[V any](want map[route]V, seen map[route]bool) string {
	var miss []string
	for k := range want {
		if !seen[k] {
			miss = append(miss, k.origin+"-"+k.destination)
		}
	}
	if len(miss) == 0 {
		return "none"
	}
	sort.Strings(miss)
	return strings.Join(miss[:min(3, len(miss))], ", ")
}

// stream is one workload's input, prepared before the clock starts: the
// table-shaped batches in write order and, for each, the probe that sees it.
// The model follows the stream up to a batch (observe), so that a run that
// stops early (--snapshots) is checked against what it wrote.
type stream struct {
	batches []arrow.RecordBatch
	probes  []probe
	rows    int64
	model   model
	// srcs are the flights batches of the steps (not retained: they belong
	// to the flights); observed counts the steps the model has seen.
	srcs     []arrow.RecordBatch
	observed int
	// arena holds the table-shaped copies of the flights (off the heap, see
	// arena); it is unmapped by Release.
	arena arena
}

// Release releases the batches and unmaps the arena: nothing may use the
// batches afterwards.
func (s *stream) Release() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches = nil
	s.arena.reset()
}

// observe lets the model see the steps up to n (exclusive).
func (s *stream) observe(n int) {
	for ; s.observed < n; s.observed++ {
		src := s.srcs[s.observed]
		s.model.observe(colsOf(src), int(src.NumRows()))
	}
}

// newStream builds the stream of w from the flights: all batches in order,
// or, when steps > 0, exactly steps batches cycling through the flights.
// With offsets, each batch starts with the real-time offset column holding
// every row's position in the stream (application offsets, as a source's
// own offsets would be for exactly-once replay). The model sees every step
// unless steps > 0 (then the run calls observe for the steps it wrote).
func newStream(ctx context.Context, w *workload, fl *dataset, steps int, offsets bool) (*stream, error) {
	s := &stream{model: w.newModel()}
	built := make([]arrow.RecordBatch, len(fl.batches))
	defer func() {
		for _, b := range built {
			if b != nil {
				b.Release()
			}
		}
	}()
	n := len(fl.batches)
	if steps > 0 {
		n = steps
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			s.Release()
			return nil, err
		}
		j := i % len(fl.batches)
		src := fl.batches[j]
		if built[j] == nil {
			b := w.build(src)
			c, err := s.arena.record(b)
			b.Release()
			if err != nil {
				s.Release()
				return nil, err
			}
			built[j] = c
		}
		b := built[j]
		switch {
		case w.follow:
			b = withPosition(b, s.rows)
			if offsets {
				p := b
				b = withOffsets(p, s.rows)
				p.Release()
			}
		case offsets:
			b = withOffsets(b, s.rows)
		default:
			b.Retain()
		}
		s.batches = append(s.batches, b)
		s.srcs = append(s.srcs, src)
		s.rows += src.NumRows()
		s.probes = append(s.probes, probe{cumRows: s.rows, last: colsOf(src).row(int(src.NumRows()) - 1)})
	}
	if steps == 0 {
		s.observe(n)
	}
	return s, nil
}

// withOffsets returns rec with a first column realtime.OffsetColumn holding
// first, first+1, ...
func withOffsets(rec arrow.RecordBatch, first int64) arrow.RecordBatch {
	n := rec.NumRows()
	off := sequence(first, n)
	defer off.Release()
	sc := arrow.NewSchema(append([]arrow.Field{{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64}},
		rec.Schema().Fields()...), nil)
	return array.NewRecordBatch(sc, append([]arrow.Array{off}, rec.Columns()...), n)
}

// sequence returns the Int64 array first, first+1, ..., n values.
func sequence(first, n int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(int(n))
	for k := range n {
		b.UnsafeAppend(first + k)
	}
	return b.NewArray()
}
