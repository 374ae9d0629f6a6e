package reader

import (
	"iter"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/types"
)

// keyFilter returns the conjuncts of the plan's filter that name only
// trimmed primary-key columns, rewritten over inFields (the key-value
// layout a merge reads: _KEY_<k> columns, or the value columns in thin
// mode), or nil when there are none. Such a predicate treats every version
// of a key alike, so rows failing it may be dropped from each sorted run
// before the merge: every version of a key is kept or none is, and the
// merge of a kept key sees all its versions (the same reasoning as the
// real-time layer's store hint, realtime-design.md 8.5). A point lookup
// then merges the rows of its keys, not the whole bucket. The exact filter
// still runs after the merge.
func (sr *splitRead) keyFilter(inFields []types.DataField, thin bool) predicate.Predicate {
	f := sr.plan.filter
	if f == nil || sr.plan.Schema == nil {
		return nil
	}
	keys := sr.ts.TrimmedPrimaryKeys()
	p, ok := f.Pick(func(i int) (int, bool) {
		if i < 0 || i >= len(sr.plan.Schema.Fields) {
			return 0, false
		}
		want := sr.plan.Schema.Fields[i]
		isKey := false
		for _, k := range keys {
			if k == want.Name {
				isKey = true
			}
		}
		if !isKey {
			return 0, false
		}
		name := want.Name
		if !thin {
			name = keyFieldPrefix + want.Name
		}
		for j, in := range inFields {
			if in.Name == name && in.Type.NotNull().Equal(want.Type.NotNull()) {
				return j, true
			}
		}
		return 0, false
	})
	if !ok {
		return nil
	}
	return p
}

// keepKeys yields the rows of run's batches for which p (over inFields)
// holds, in order; batches left empty are dropped.
func (sr *splitRead) keepKeys(run iter.Seq2[arrow.RecordBatch, error], p predicate.Predicate, inFields []types.DataField) iter.Seq2[arrow.RecordBatch, error] {
	colOf := make([]int, len(inFields))
	for i := range colOf {
		colOf[i] = i
	}
	return selectEach(run, func(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
		return filterRecord(rec, colOf, inFields, p, sr.mem)
	})
}

// selectEach yields, for each batch of run, the batch pick returns (nil:
// none); the batches of run are released.
func selectEach(run iter.Seq2[arrow.RecordBatch, error], pick func(arrow.RecordBatch) (arrow.RecordBatch, error)) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range run {
			if err != nil {
				yield(nil, err)
				return
			}
			out, err := pick(rec)
			rec.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if out != nil && !yield(out, nil) {
				return
			}
		}
	}
}

// pointKeys is the pre-merge selection of a point lookup (WithKeys): the
// looked-up keys' trimmed primary-key values, sorted and distinct, and the
// columns of the key-value layout that hold them. Every batch of a sorted
// run is sorted by that key (files by their key; memory runs by key, then
// sequence number, as ReadSplitWith requires), so each key's rows are found
// by binary search: O(keys × log rows) values read per batch instead of
// every row tested against the filter.
type pointKeys struct {
	cols  []int
	types []types.DataType
	keys  [][]any
}

// pointKeys returns the selection of a WithKeys scan, or nil when the scan
// has no keys or a key type is not ordered here exactly as the merge orders
// it (then keyFilter serves).
func (sr *splitRead) pointKeys(inFields []types.DataField, thin bool) *pointKeys {
	keys := sr.plan.cfg.keys
	if keys == nil {
		return nil
	}
	trimmed := sr.ts.TrimmedPrimaryKeyFields()
	pk := &pointKeys{}
	src := make([]arrow.Array, len(trimmed))
	for i, f := range trimmed {
		name := f.Name
		if !thin {
			name = keyFieldPrefix + f.Name
		}
		col := -1
		for j, in := range inFields {
			if in.Name == name && in.Type.NotNull().Equal(f.Type.NotNull()) {
				col = j
			}
		}
		idx := keys.Schema().FieldIndices(f.Name)
		if col < 0 || len(idx) != 1 {
			return nil
		}
		src[i] = keys.Column(idx[0])
		pk.cols = append(pk.cols, col)
		pk.types = append(pk.types, f.Type)
	}
	var ok bool
	if pk.keys, ok = types.SortedKeys(pk.types, src, int(keys.NumRows())); !ok {
		return nil
	}
	return pk
}

// cmpRow orders row of rec against key.
func (pk *pointKeys) cmpRow(rec arrow.RecordBatch, row int, key []any) int {
	for i, c := range pk.cols {
		if o := types.CompareArrow(pk.types[i], rec.Column(c), row, key[i]); o != 0 {
			return o
		}
	}
	return 0
}

// take returns the rows of rec (sorted by key) whose key is looked up, or
// nil when there are none.
func (pk *pointKeys) take(rec arrow.RecordBatch, sr *splitRead) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	var spans []span
	lo := 0
	for _, key := range pk.keys {
		i := lo + sort.Search(n-lo, func(x int) bool { return pk.cmpRow(rec, lo+x, key) >= 0 })
		j := i + sort.Search(n-i, func(x int) bool { return pk.cmpRow(rec, i+x, key) > 0 })
		if j > i {
			spans = append(spans, span{i, j})
		}
		lo = j
	}
	if len(spans) == 0 {
		return nil, nil
	}
	return selectSpans(rec, spans, sr.mem)
}

// keepPoints yields the rows of run's batches whose key pk looks up.
func (sr *splitRead) keepPoints(run iter.Seq2[arrow.RecordBatch, error], pk *pointKeys) iter.Seq2[arrow.RecordBatch, error] {
	return selectEach(run, func(rec arrow.RecordBatch) (arrow.RecordBatch, error) { return pk.take(rec, sr) })
}
