package roundtrip

import (
	"math"
	"slices"
)

// Row kinds, as Java's RowKind bytes.
const (
	kindInsert       int8 = 0 // +I
	kindUpdateBefore int8 = 1 // -U
	kindUpdateAfter  int8 = 2 // +U
	kindDelete       int8 = 3 // -D
)

func isRetract(k int8) bool { return k == kindUpdateBefore || k == kindDelete }

func kindName(k int8) string {
	return [...]string{"+I", "-U", "+U", "-D"}[k]
}

// Column positions of the test table (see tableFields).
const (
	colPart = iota // STRING, the partition column of partitioned shapes
	colID          // INT NOT NULL, the primary key (with part)
	colV           // BIGINT
	colS           // STRING
	colF           // DOUBLE
	colDec         // DECIMAL(12, 3), as the unscaled int64
	colTS          // TIMESTAMP(6), as epoch microseconds
	colSeq         // BIGINT, the sequence.field of that shape
	numCols
)

// record is one input row with its kind; values are Go values per column
// (nil = NULL): string, int32, int64, float64, int64 (unscaled decimal),
// int64 (micros), int64.
type record struct {
	kind int8
	row  []any
}

func (r record) clone() record { return record{kind: r.kind, row: slices.Clone(r.row)} }

// mergeFunction mirrors Java's org.apache.paimon.mergetree.compact.MergeFunction:
// records of one key are added in sequence order after reset, result is
// the merged record. Java applies it twice: when the writer flushes its
// sort buffer (MergeTreeWriter: one record per key per flush, retractions
// kept) and when a read merges the key's records of all files
// (MergeTreeReaders; results of a retract kind are dropped).
type mergeFunction interface {
	reset()
	add(r record)
	result() record
}

// dedup is DeduplicateMergeFunction; with seqField >= 0 the records are
// ordered by that column first (UserDefinedSeqComparator, ascending) and
// by sequence number second, as Java's sort merge does, so the last record
// in that order wins.
type dedup struct {
	seqField int
	latest   *record
}

func (d *dedup) reset() { d.latest = nil }

func (d *dedup) add(r record) {
	if d.latest != nil && d.seqField >= 0 {
		// r arrives later (higher sequence number): it wins ties.
		if r.row[d.seqField].(int64) < d.latest.row[d.seqField].(int64) {
			return
		}
	}
	c := r.clone()
	d.latest = &c
}

func (d *dedup) result() record { return d.latest.clone() }

// partialUpdate is PartialUpdateMergeFunction without sequence groups,
// with partial-update.remove-record-on-delete = true and ignore-delete =
// false (the only retraction the generator sends to it is -D).
type partialUpdate struct {
	row                 []any
	notNullColumnFilled bool
	meetInsert          bool
	currentDeleteRow    bool
}

func (p *partialUpdate) reset() {
	p.row = make([]any, numCols)
	p.notNullColumnFilled, p.meetInsert, p.currentDeleteRow = false, false, false
}

func (p *partialUpdate) add(r record) {
	p.currentDeleteRow = false
	if isRetract(r.kind) {
		if !p.notNullColumnFilled {
			p.row = slices.Clone(r.row)
			p.notNullColumnFilled = true
		}
		if r.kind == kindDelete {
			p.currentDeleteRow = true
			p.row = slices.Clone(r.row)
		}
		return
	}
	for i, v := range r.row {
		if v != nil {
			p.row[i] = v
		}
	}
	p.meetInsert = true
	p.notNullColumnFilled = true
}

func (p *partialUpdate) result() record {
	k := kindInsert
	if p.currentDeleteRow || !p.meetInsert {
		k = kindDelete
	}
	return record{kind: k, row: slices.Clone(p.row)}
}

// aggregate is AggregateMergeFunction with aggregation.remove-record-on-delete
// = true: sum for v and dec, max for f, primary-key (last value) for part
// and id, last_non_null_value (the default) for the rest. The generator
// sends it +I and -D only.
type aggregate struct {
	row              []any
	currentDeleteRow bool
}

func (a *aggregate) reset() { a.row, a.currentDeleteRow = make([]any, numCols), false }

func (a *aggregate) add(r record) {
	a.currentDeleteRow = r.kind == kindDelete
	if a.currentDeleteRow {
		a.row = slices.Clone(r.row)
		return
	}
	for i, in := range r.row {
		acc := a.row[i]
		switch i {
		case colPart, colID:
			a.row[i] = in // FieldPrimaryKeyAgg
		case colV, colDec:
			if acc == nil || in == nil {
				if acc == nil {
					a.row[i] = in
				}
				continue
			}
			a.row[i] = acc.(int64) + in.(int64) // FieldSumAgg (no overflow in the generated range)
		case colF:
			if acc == nil || in == nil {
				if acc == nil {
					a.row[i] = in
				}
				continue
			}
			if javaDoubleCompare(acc.(float64), in.(float64)) < 0 { // FieldMaxAgg
				a.row[i] = in
			}
		default:
			if in != nil { // FieldLastNonNullValueAgg
				a.row[i] = in
			}
		}
	}
}

func (a *aggregate) result() record {
	k := kindInsert
	if a.currentDeleteRow {
		k = kindDelete
	}
	return record{kind: k, row: slices.Clone(a.row)}
}

// javaDoubleCompare is Double.compare: -0.0 < 0.0, NaN above everything
// and equal to itself.
func javaDoubleCompare(x, y float64) int {
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		b := int64(math.Float64bits(f))
		if b < 0 {
			b ^= math.MaxInt64
		}
		return b
	}
	switch bx, by := bits(x), bits(y); {
	case bx < by:
		return -1
	case bx > by:
		return 1
	}
	return 0
}

// pkey identifies a row of a primary-key table: partition and id.
type pkey struct {
	part string
	id   int32
}

// oracle is the expected state of one table.
type oracle struct {
	pk    bool
	merge func() mergeFunction
	// appended holds every row of an append table, in write order.
	appended [][]any
	// flushed holds, per key of a primary-key table, the record each
	// writer flush produced for it (level-0 files, never compacted here),
	// in sequence order.
	flushed map[pkey][]record
	// pending holds the records written since the last flush, per key in
	// write order.
	pending map[pkey][]record
	order   []pkey // keys in first-seen order, for determinism
}

func newOracle(pk bool, merge func() mergeFunction) *oracle {
	return &oracle{pk: pk, merge: merge, flushed: map[pkey][]record{}, pending: map[pkey][]record{}}
}

func keyOf(row []any) pkey {
	p, _ := row[colPart].(string)
	return pkey{part: p, id: row[colID].(int32)}
}

// write applies one written record.
func (o *oracle) write(r record) {
	if !o.pk {
		o.appended = append(o.appended, slices.Clone(r.row))
		return
	}
	k := keyOf(r.row)
	if _, seen := o.flushed[k]; !seen {
		if _, pend := o.pending[k]; !pend {
			o.order = append(o.order, k)
		}
	}
	o.pending[k] = append(o.pending[k], r.clone())
}

// flush is the writer's PrepareCommit: every key's pending records become
// one merged record (MergeTreeWriter.flushWriteBuffer).
func (o *oracle) flush() {
	for k, recs := range o.pending {
		mf := o.merge()
		mf.reset()
		for _, r := range recs {
			mf.add(r)
		}
		o.flushed[k] = append(o.flushed[k], mf.result())
	}
	clear(o.pending)
}

// rows returns what a batch read of the committed table returns.
func (o *oracle) rows() [][]any {
	if !o.pk {
		return o.appended
	}
	var out [][]any
	for _, k := range o.order {
		recs := o.flushed[k]
		if len(recs) == 0 {
			continue
		}
		mf := o.merge()
		mf.reset()
		for _, r := range recs {
			mf.add(r)
		}
		if res := mf.result(); !isRetract(res.kind) {
			out = append(out, res.row)
		}
	}
	return out
}

// keys returns the keys the oracle has seen, in first-seen order.
func (o *oracle) keys() []pkey { return o.order }
