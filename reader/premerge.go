package reader

import (
	"iter"

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
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range run {
			if err != nil {
				yield(nil, err)
				return
			}
			out, err := filterRecord(rec, colOf, inFields, p, sr.mem)
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
