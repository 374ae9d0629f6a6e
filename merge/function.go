package merge

import (
	"fmt"
)

// Row kinds, the _VALUE_KIND byte (Java org.apache.paimon.types.RowKind).
const (
	KindInsert       int8 = 0 // +I
	KindUpdateBefore int8 = 1 // -U
	KindUpdateAfter  int8 = 2 // +U
	KindDelete       int8 = 3 // -D
)

// IsRetract reports whether a row kind is -U or -D (RowKind.isRetract).
func IsRetract(kind int8) bool { return kind == KindUpdateBefore || kind == KindDelete }

// KindString returns the short string of a row kind ("+I", "-U", "+U", "-D").
func KindString(kind int8) string {
	switch kind {
	case KindInsert:
		return "+I"
	case KindUpdateBefore:
		return "-U"
	case KindUpdateAfter:
		return "+U"
	case KindDelete:
		return "-D"
	}
	return fmt.Sprintf("kind(%d)", kind)
}

// entry is one input record taking part in the merge of a key.
type entry struct {
	b   *batch
	row int32
	run int32
}

func (e entry) kind() int8 { return e.b.kind[e.row] }
func (e entry) seq() int64 { return e.b.seq[e.row] }

// resultKind says what a merge function produced for a key.
type resultKind uint8

const (
	resNone     resultKind = iota // the key produces no record
	resRef                        // an input record, unchanged (its own kind and sequence)
	resComputed                   // a new row in result.cells with kind and seq
)

// result is the outcome of merging one key (Java MergeFunction.getResult).
type result struct {
	kind  resultKind
	ref   entry  // resRef: the record; resComputed: the record whose key is used
	rkind int8   // resComputed: row kind
	seq   int64  // resComputed: sequence number
	cells []cell // resComputed: value columns
}

// mergeFunc merges the records of one key, given in merge order (sequence
// ascending). It is called only for keys with at least two records: a lone
// record passes through unchanged, as Java's ReducerMergeFunctionWrapper
// does.
type mergeFunc interface {
	merge(group []entry, res *result) error
}

// deduplicate is DeduplicateMergeFunction: the last record wins; with
// ignore-delete, retractions are skipped.
type deduplicate struct{ ignoreDelete bool }

func (f deduplicate) merge(group []entry, res *result) error {
	res.kind = resNone
	for _, e := range group {
		if f.ignoreDelete && IsRetract(e.kind()) {
			continue
		}
		res.kind, res.ref = resRef, e
	}
	return nil
}

// firstRow is FirstRowMergeFunction: the first record wins; retractions are
// an error unless ignore-delete.
type firstRow struct{ ignoreDelete bool }

func (f firstRow) merge(group []entry, res *result) error {
	res.kind = resNone
	for _, e := range group {
		if IsRetract(e.kind()) {
			if f.ignoreDelete {
				continue
			}
			return fmt.Errorf("%w: first-row merge engine can not accept %s records by default; configure '%s' to ignore them",
				ErrRetract, KindString(e.kind()), KeyIgnoreDelete)
		}
		if res.kind == resNone {
			res.kind, res.ref = resRef, e
		}
	}
	return nil
}

// seqComparator is a partial-update sequence group's UserDefinedSeqComparator
// over value columns: ascending, nulls first.
type seqComparator struct {
	fields []int // value column indexes of the ordering fields
	member []bool
}

// compare orders the input record against the accumulated row.
func (c *seqComparator) compare(cols []valueCol, e entry, row []cell) int {
	for _, f := range c.fields {
		in := cols[f].refCell(e.b, int(e.row))
		if r := cols[f].compareNullable(&in, &row[f]); r != 0 {
			return r
		}
	}
	return 0
}

// partialUpdate is PartialUpdateMergeFunction over the merger's value columns.
type partialUpdate struct {
	cols            []valueCol
	nullable        []bool
	aggs            []fieldAgg       // per value column, nil when none
	seqCmp          []*seqComparator // per value column, nil when not in a group
	hasSeqCmp       bool             // any (projected) comparator
	fieldSeqEnabled bool             // the table defines sequence groups
	ignoreDelete    bool
	removeOnDelete  bool
	partialDelete   []bool // per value column: ordering field of a remove-record-on-sequence-group group

	row                 []cell
	in, tmp             cell // scratch input cells (kept off the heap allocator)
	processed, updated  []bool
	latestSeq           int64
	currentDeleteRow    bool
	notNullColumnFilled bool
	meetInsert          bool
	lastKey             entry
}

func (f *partialUpdate) reset() {
	clear(f.row)
	f.latestSeq = 0
	f.notNullColumnFilled = false
	f.meetInsert = false
	f.currentDeleteRow = false
	for _, a := range f.aggs {
		if a != nil {
			a.reset()
		}
	}
}

func (f *partialUpdate) merge(group []entry, res *result) error {
	f.reset()
	for _, e := range group {
		if err := f.add(e); err != nil {
			return err
		}
	}
	for i, a := range f.aggs {
		if a != nil {
			if err := finishAgg(a, &f.row[i]); err != nil {
				return err
			}
		}
	}
	res.kind = resComputed
	res.ref = f.lastKey
	res.rkind = KindInsert
	if f.currentDeleteRow || !f.meetInsert {
		res.rkind = KindDelete
	}
	res.seq = f.latestSeq
	res.cells = f.row
	return nil
}

func nullFieldError(col *valueCol, i int) error {
	return fmt.Errorf("%w: field %d (%q) can not be null", ErrNull, i, col.name)
}

func (f *partialUpdate) initRow(e entry) error {
	for i := range f.cols {
		f.row[i] = f.cols[i].refCell(e.b, int(e.row))
		if f.row[i].st == cNull && !f.nullable[i] {
			return nullFieldError(&f.cols[i], i)
		}
	}
	return nil
}

func (f *partialUpdate) add(e entry) error {
	f.lastKey = e
	f.currentDeleteRow = false
	kind := e.kind()
	if IsRetract(kind) {
		if !f.notNullColumnFilled {
			if err := f.initRow(e); err != nil {
				return err
			}
			f.notNullColumnFilled = true
		}
		if f.ignoreDelete {
			return nil
		}
		f.latestSeq = e.seq()
		if f.fieldSeqEnabled {
			return f.retractWithSequenceGroup(e)
		}
		if f.removeOnDelete {
			if kind == KindDelete {
				f.currentDeleteRow = true
				clear(f.row)
				return f.initRow(e)
			}
			return nil
		}
		return fmt.Errorf("%w: partial-update can not accept %s records by default; configure '%s', '%s', or sequence groups (with '%s')",
			ErrRetract, KindString(kind), KeyIgnoreDelete, KeyPartialUpdateRemoveOnDelete, KeyPartialUpdateRemoveOnSeqGrp)
	}
	f.latestSeq = e.seq()
	var err error
	if !f.hasSeqCmp {
		err = f.updateNonNullFields(e)
	} else {
		err = f.updateWithSequenceGroup(e)
	}
	f.meetInsert = true
	f.notNullColumnFilled = true
	return err
}

func (f *partialUpdate) updateNonNullFields(e entry) error {
	for i := range f.cols {
		if !f.cols[i].vIsNull(e) {
			f.cols[i].setRef(&f.row[i], e.b, e.row)
		} else if !f.nullable[i] {
			return nullFieldError(&f.cols[i], i)
		}
	}
	return nil
}

// isEmptySequenceGroup reports whether all ordering fields of the record are
// null; if so they are marked processed.
func (f *partialUpdate) isEmptySequenceGroup(e entry, c *seqComparator) bool {
	for _, fi := range c.fields {
		if !f.cols[fi].refCell(e.b, int(e.row)).isNull() {
			return false
		}
	}
	for _, fi := range c.fields {
		f.processed[fi] = true
	}
	return true
}

func (x cell) isNull() bool { return x.st == cNull }

func (f *partialUpdate) updateWithSequenceGroup(e entry) error {
	clear(f.processed)
	in := &f.in
	for i := range f.cols {
		cmp, ag := f.seqCmp[i], f.aggs[i]
		*in = f.cols[i].refCell(e.b, int(e.row))
		if cmp == nil {
			if ag != nil {
				if err := ag.agg(&f.row[i], in); err != nil {
					return err
				}
			} else if in.st != cNull {
				f.row[i] = *in
			}
			continue
		}
		if f.processed[i] || f.isEmptySequenceGroup(e, cmp) {
			continue
		}
		if cmp.compare(f.cols, e, f.row) >= 0 {
			if cmp.member[i] {
				for _, fi := range cmp.fields {
					f.row[fi] = f.cols[fi].refCell(e.b, int(e.row))
					f.processed[fi] = true
				}
				continue
			}
			if ag == nil {
				f.row[i] = *in
			} else if err := ag.agg(&f.row[i], in); err != nil {
				return err
			}
		} else if ag != nil {
			if err := aggReversed(ag, &f.row[i], in, &f.tmp); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *partialUpdate) retractWithSequenceGroup(e entry) error {
	clear(f.processed)
	clear(f.updated)
	for i := range f.cols {
		cmp, ag := f.seqCmp[i], f.aggs[i]
		if cmp == nil {
			continue
		}
		if f.processed[i] || f.isEmptySequenceGroup(e, cmp) {
			continue
		}
		in := &f.in
		*in = f.cols[i].refCell(e.b, int(e.row))
		if cmp.compare(f.cols, e, f.row) >= 0 {
			if cmp.member[i] {
				for _, fi := range cmp.fields {
					if !f.updated[fi] {
						if e.kind() == KindDelete && f.partialDelete[fi] {
							f.currentDeleteRow = true
							clear(f.row)
							return f.initRow(e)
						}
						f.row[fi] = f.cols[fi].refCell(e.b, int(e.row))
						f.updated[fi] = true
					}
					f.processed[fi] = true
				}
			} else if ag == nil {
				f.row[i] = cell{}
			} else if err := ag.retract(&f.row[i], in); err != nil {
				return err
			}
		} else if ag != nil {
			if err := ag.retract(&f.row[i], in); err != nil {
				return err
			}
		}
	}
	return nil
}

// aggregate is AggregateMergeFunction over the merger's value columns.
type aggregate struct {
	cols           []valueCol
	nullable       []bool
	aggs           []fieldAgg // one per value column
	removeOnDelete bool

	row              []cell
	in               cell // scratch input cell (kept off the heap allocator)
	latest           entry
	currentDeleteRow bool
}

func (f *aggregate) merge(group []entry, res *result) error {
	clear(f.row)
	for _, a := range f.aggs {
		a.reset()
	}
	f.currentDeleteRow = false
	for _, e := range group {
		if err := f.add(e); err != nil {
			return err
		}
	}
	for i, a := range f.aggs {
		if err := finishAgg(a, &f.row[i]); err != nil {
			return err
		}
	}
	res.kind = resComputed
	res.ref = f.latest
	res.rkind = KindInsert
	if f.currentDeleteRow {
		res.rkind = KindDelete
	}
	res.seq = f.latest.seq()
	res.cells = f.row
	return nil
}

func (f *aggregate) add(e entry) error {
	f.latest = e
	kind := e.kind()
	f.currentDeleteRow = f.removeOnDelete && kind == KindDelete
	if f.currentDeleteRow {
		for i := range f.cols {
			f.row[i] = f.cols[i].refCell(e.b, int(e.row))
			if f.row[i].st == cNull && !f.nullable[i] {
				return nullFieldError(&f.cols[i], i)
			}
		}
		return nil
	}
	retract := IsRetract(kind)
	in := &f.in // a field, not a local: a local passed to an interface method escapes
	for i := range f.cols {
		f.cols[i].setRef(in, e.b, e.row)
		var err error
		if retract {
			err = f.aggs[i].retract(&f.row[i], in)
		} else {
			err = f.aggs[i].agg(&f.row[i], in)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
