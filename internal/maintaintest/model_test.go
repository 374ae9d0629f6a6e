package maintaintest

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/paimon-go/paimon/types"
)

// Row kinds, as Java's RowKind bytes, and their input spelling.
const (
	kindInsert      int8 = 0 // +I
	kindUpdateAfter int8 = 2 // +U
	kindDelete      int8 = 3 // -D
)

func kindName(k int8) string { return [...]string{"+I", "-U", "+U", "-D"}[k] }

// Column positions of the test table (see tableFields).
const (
	colPart = iota // STRING, the partition
	colID          // INT NOT NULL; the primary key is (part, id)
	colV           // BIGINT, aggregated with sum
	colS           // STRING, last_non_null_value
	colF           // DOUBLE, aggregated with max
	colSeq         // BIGINT, the sequence.field of the -seq variants
	numCols
)

// tableFields are the columns of the model table.
func tableFields() []types.DataField {
	return []types.DataField{
		{Name: "part", Type: types.String()},
		{Name: "id", Type: types.Int().NotNull()},
		{Name: "v", Type: types.BigInt()},
		{Name: "s", Type: types.String()},
		{Name: "f", Type: types.Double()},
		{Name: "seq", Type: types.BigInt()},
	}
}

// engine is a merge engine.
type engine int

const (
	engDedup engine = iota
	engPartial
	engAgg
	engFirstRow
)

// variant is one table configuration the model test runs.
type variant struct {
	name     string
	engine   engine
	seqField bool // sequence.field = seq
	dv       bool // deletion-vectors.enabled = true
}

// variants are every merge engine, with and without sequence.field
// (deduplicate, partial-update), with and without deletion vectors.
func variants() []variant {
	// first-row has no deletion-vector variant: Java refuses the
	// combination (SchemaValidation.validateForDeletionVectors: "First row
	// merge engine does not need deletion vectors because there is no
	// deletion of old data in this merge engine.").
	out := []variant{{name: "first-row", engine: engFirstRow}}
	for _, dv := range []bool{false, true} {
		sfx := ""
		if dv {
			sfx = "-dv"
		}
		out = append(out,
			variant{name: "dedup" + sfx, engine: engDedup, dv: dv},
			variant{name: "dedup-seq" + sfx, engine: engDedup, seqField: true, dv: dv},
			variant{name: "partial" + sfx, engine: engPartial, dv: dv},
			variant{name: "partial-seq" + sfx, engine: engPartial, seqField: true, dv: dv},
			variant{name: "agg" + sfx, engine: engAgg, dv: dv},
		)
	}
	return out
}

// options are the table options of v (without the per-seed compaction
// options).
func (v variant) options() map[string]string {
	o := map[string]string{"bucket": "2"}
	switch v.engine {
	case engPartial:
		o["merge-engine"] = "partial-update"
		o["partial-update.remove-record-on-delete"] = "true"
	case engAgg:
		o["merge-engine"] = "aggregation"
		o["aggregation.remove-record-on-delete"] = "true"
		o["fields.v.aggregate-function"] = "sum"
		o["fields.f.aggregate-function"] = "max"
	case engFirstRow:
		o["merge-engine"] = "first-row"
		o["ignore-delete"] = "true"
	}
	if v.seqField {
		o["sequence.field"] = "seq"
	}
	if v.dv {
		o["deletion-vectors.enabled"] = "true"
	}
	return o
}

// skipsLevel0 reports that batch reads skip level-0 files (Java reads
// deletion-vector and first-row tables from level 1 up), so rows become
// visible only once compaction moved them up.
func (v variant) skipsLevel0() bool { return v.dv || v.engine == engFirstRow }

// record is one input row with its kind; row holds Go values per column
// (string, int32, int64, string, float64, int64; nil = NULL).
type record struct {
	kind int8
	row  []any
}

// pkey identifies a row: partition and id.
type pkey struct {
	part string
	id   int32
}

func keyOf(row []any) pkey { return pkey{part: row[colPart].(string), id: row[colID].(int32)} }

// entry is the model's merged record of one key.
type entry struct {
	// deleted: the merged record is a -D (the key is not read).
	deleted bool
	// row is the merged row.
	row []any
	// maxSeq is the highest sequence.field value written for the key
	// (-seq variants), and top the written row that holds it.
	maxSeq int64
	top    []any
	// pinned (partial-update with sequence.field): an out-of-order record
	// was written since the last in-order record that set every column.
	pinned bool
}

// state is the merged record of every key written. States are never
// modified once recorded for a snapshot: apply works on a clone.
type state map[pkey]entry

// rows returns the rows a read of st returns.
func (st state) rows() [][]any {
	var out [][]any
	for _, e := range st {
		if !e.deleted {
			out = append(out, e.row)
		}
	}
	return out
}

func keyRow(r []any) []any {
	row := make([]any, numCols)
	row[colPart], row[colID] = r[colPart], r[colID]
	return row
}

// apply merges record r into st as the table's merge engine does
// (Java DeduplicateMergeFunction, PartialUpdateMergeFunction with
// partial-update.remove-record-on-delete, AggregateMergeFunction with
// aggregation.remove-record-on-delete, FirstRowMergeFunction with
// ignore-delete). With sequence.field a record whose value is below the
// key's highest one is applied as Java's ordering by sequence.field does for
// the records the generator makes: it loses (deduplicate) or changes
// nothing (partial-update; see generator.record).
func (v variant) apply(st state, r record) {
	k := keyOf(r.row)
	e, ok := st[k]
	var seq int64
	if v.seqField {
		seq = r.row[colSeq].(int64)
		if ok && seq < e.maxSeq {
			if v.engine == engPartial {
				e.pinned = true
				st[k] = e
			}
			return
		}
	}
	// A -D resets the row (remove-record-on-delete); a key after a -D
	// starts afresh, exactly as a key whose -D compaction dropped.
	base := keyRow(r.row)
	if ok && !e.deleted {
		base = slices.Clone(e.row)
	}
	switch v.engine {
	case engDedup:
		st[k] = entry{deleted: r.kind == kindDelete, row: slices.Clone(r.row), maxSeq: seq, top: r.row}
	case engPartial:
		if r.kind == kindDelete {
			st[k] = entry{deleted: true, row: keyRow(r.row), maxSeq: seq, top: r.row}
			return
		}
		for i, x := range r.row {
			if x != nil {
				base[i] = x
			}
		}
		full := !slices.Contains(r.row[colV:colSeq], nil)
		st[k] = entry{row: base, maxSeq: seq, top: r.row, pinned: ok && e.pinned && !full}
	case engAgg:
		if r.kind == kindDelete {
			st[k] = entry{deleted: true, row: keyRow(r.row)}
			return
		}
		if x := r.row[colV]; x != nil { // sum
			if base[colV] == nil {
				base[colV] = x
			} else {
				base[colV] = base[colV].(int64) + x.(int64)
			}
		}
		if x := r.row[colF]; x != nil { // max (no NaN or -0.0 generated)
			if base[colF] == nil || x.(float64) > base[colF].(float64) {
				base[colF] = x
			}
		}
		for _, c := range []int{colS, colSeq} { // last_non_null_value
			if x := r.row[c]; x != nil {
				base[c] = x
			}
		}
		st[k] = entry{row: base}
	case engFirstRow:
		if r.kind == kindDelete || ok { // ignore-delete; the first row stays
			return
		}
		st[k] = entry{row: slices.Clone(r.row)}
	}
}

// Value pools of the generator.
var (
	parts      = []string{"a", "b", "c=d"}
	stringPool = []string{"", "x", "é", "a somewhat longer string value 0123456789"}
	floatPool  = []float64{-2.5, -1, 0, 0.125, 3, 1e9, 12345.678}
)

const numIDs = 16

// generator makes random records. Its rules keep every record's effect
// independent of how compaction groups the files, as Java Paimon's merge
// functions need for a read to be defined:
//
//   - a -D carries only the key (and sequence.field);
//   - partial-update and aggregation: a deleted key is not written again
//     (only deleted again) until a full compaction dropped its -D. Java's
//     merge of a -D with later records of the key yields a +I that no longer
//     resets what older files hold for the key (PartialUpdateMergeFunction
//     and AggregateMergeFunction return INSERT once a record follows the
//     DELETE), so a write flush or a compaction that merges the -D with a
//     later record but not with the older ones changes the result: Java
//     defines no result independent of the grouping. Deduplicate has no such
//     problem (the later record replaces the key whole);
//   - with sequence.field, a record gets a value above the key's highest so
//     far ("in order"), or, only while the key is live, a lower one ("out of
//     order", case (a)). An out-of-order record after a -D is not made: once
//     a full compaction drops the -D the lower record would win. For
//     partial-update an out-of-order record is never a -D (it would reset the
//     fields of the records ordered before it) and sets only columns the
//     key's top record sets; and the key's next in-order record, unless a
//     -D, sets every column: a flush or compaction that merges the
//     out-of-order record with a later one carries the later one's
//     sequence.field, so the later record must override all it sets. Then
//     the out-of-order record changes nothing however records are grouped;
//   - in-order values are strictly above every earlier one, so the key's top
//     record is unique (out-of-order records may tie among themselves: they
//     lose either way).
type generator struct {
	r *rand.Rand
	v variant
}

func (g *generator) maybe(p float64) bool { return g.r.Float64() < p }

// kinds are the row kinds the generator sends to each engine.
func (g *generator) kind() int8 {
	pool := map[engine][]int8{
		engDedup:    {kindInsert, kindInsert, kindUpdateAfter, kindDelete},
		engPartial:  {kindInsert, kindUpdateAfter, kindUpdateAfter, kindDelete},
		engAgg:      {kindInsert, kindInsert, kindUpdateAfter, kindDelete},
		engFirstRow: {kindInsert, kindUpdateAfter, kindDelete},
	}[g.v.engine]
	return pool[g.r.IntN(len(pool))]
}

// record makes one record for the pending state st (the state after every
// record made so far).
func (g *generator) record(st state) record {
	k := pkey{part: parts[g.r.IntN(len(parts))], id: int32(g.r.IntN(numIDs))}
	kind := g.kind()
	if g.v.engine == engPartial || g.v.engine == engAgg {
		// A deleted key is not written again while its -D may still be
		// in a file (see the rules above); a further -D is harmless.
		for try := 0; try < 8 && st[k].deleted; try++ {
			k = pkey{part: parts[g.r.IntN(len(parts))], id: int32(g.r.IntN(numIDs))}
		}
		if st[k].deleted {
			kind = kindDelete
		}
	}
	row := make([]any, numCols)
	row[colPart], row[colID] = k.part, k.id
	e, exists := st[k]
	outOfOrder := g.v.seqField && exists && !e.deleted && e.maxSeq > 0 && g.maybe(0.3)
	if outOfOrder && g.v.engine == engPartial && kind == kindDelete {
		kind = kindUpdateAfter
	}
	if kind != kindDelete {
		if !g.maybe(0.2) {
			row[colV] = g.r.Int64N(1001) - 500
		}
		if !g.maybe(0.2) {
			row[colS] = stringPool[g.r.IntN(len(stringPool))]
		}
		if !g.maybe(0.2) {
			row[colF] = floatPool[g.r.IntN(len(floatPool))]
		}
		if !g.v.seqField && !g.maybe(0.3) {
			row[colSeq] = g.r.Int64N(100)
		}
	}
	if g.v.seqField {
		switch {
		case outOfOrder:
			row[colSeq] = g.r.Int64N(e.maxSeq)
			if g.v.engine == engPartial {
				for c := colV; c < colSeq; c++ {
					if e.top[c] == nil {
						row[c] = nil
					}
				}
			}
		case exists:
			row[colSeq] = e.maxSeq + 1 + g.r.Int64N(3)
			if e.pinned && kind != kindDelete {
				row[colV], row[colS], row[colF] = g.r.Int64N(1001)-500, stringPool[g.r.IntN(len(stringPool))], floatPool[g.r.IntN(len(floatPool))]
			}
		default:
			row[colSeq] = 1 + g.r.Int64N(5)
		}
	}
	return record{kind: kind, row: row}
}

// cloneState returns a copy of st that apply may change.
func cloneState(st state) state { return maps.Clone(st) }

// dropDeleted returns st without its deleted keys: a full compaction drops
// every -D (its output is the highest level and holds all data).
func dropDeleted(st state) state {
	out := state{}
	for k, e := range st {
		if !e.deleted {
			out[k] = e
		}
	}
	return out
}
