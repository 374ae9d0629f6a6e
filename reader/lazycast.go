package reader

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/types"
)

// fileBatch turns one batch of a data file, read in the file's types, into
// a batch of the target columns. Like Java, which casts a field of an old
// file only when it is read (CastedRow over the file's row), it casts after
// dropping the rows a reader never looks at: first the rows the deletion
// vector deletes, then, when the file has columns to cast and filter is
// set, the rows filter rejects (the filter's own columns are cast for every
// remaining row, as an engine evaluating the filter reads them). A value
// that fails to cast in a remaining row is an error; its *cast.ValueError
// names the row's 1-based position in the file.
type fileBatch struct {
	target  *arrow.Schema
	fields  []types.DataField
	slot    []int
	from    []*types.DataType
	dv      *deletionvector.DeletionVector
	filter  predicate.Predicate
	colOf   []int             // per filter field: its target column (filterColumns), -1 if none
	fFields []types.DataField // the fields the filter's indexes refer to
	// deferred, when set, takes the errors of values that cannot be cast
	// (the value reads as null) instead of failing the read; target
	// columns of id rowIDFieldID are then filled with rowBase + the row's
	// file position.
	deferred func(rowID int64, column string, err error)
	rowBase  int64
	mem      memory.Allocator
}

func (fb *fileBatch) casts() bool {
	if fb.deferred != nil {
		return true // row ids are filled from the positions
	}
	for _, f := range fb.from {
		if f != nil {
			return true
		}
	}
	return false
}

// apply returns the target batch of raw, whose first row is at file
// position first (nil when no row is left). raw is not released.
func (fb *fileBatch) apply(raw arrow.RecordBatch, first int64) (arrow.RecordBatch, error) {
	n := int(raw.NumRows())
	casts := fb.casts()
	if fb.dv == nil && (!casts || fb.filter == nil) {
		// Every row is kept: no mask, positions from first.
		if n == 0 {
			return nil, nil
		}
		var pos []int64
		if casts {
			pos = make([]int64, n)
			for i := range pos {
				pos[i] = first + int64(i)
			}
		}
		return fb.assemble(raw, pos)
	}
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = fb.dv == nil || !fb.dv.IsDeleted(first+int64(i))
	}
	if fb.filter != nil && casts {
		if err := fb.test(raw, keep, first); err != nil {
			return nil, err
		}
	}
	var pos []int64
	for i, k := range keep {
		if k {
			pos = append(pos, first+int64(i))
		}
	}
	if len(pos) == 0 {
		return nil, nil
	}
	sel, err := selectRows(raw, func(i int) bool { return keep[i] }, fb.mem)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	return fb.assemble(sel, pos)
}

// assemble builds a record with the target schema from a batch read with
// the evolved field list: columns are taken by slot and cast from their
// file type where from says so, missing ones are all null. Errors of a cast
// (cast.ErrInvalid, cast.ErrUnsupported, format.ErrOutOfRange) name the
// column; pos holds the file positions (0-based) of in's rows, and a
// *cast.ValueError's Row is set from them (1-based).
func (fb *fileBatch) assemble(in arrow.RecordBatch, pos []int64) (arrow.RecordBatch, error) {
	n := in.NumRows()
	cols := make([]arrow.Array, len(fb.fields))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range fb.fields {
		switch {
		case f.ID == rowIDFieldID && fb.deferred != nil:
			b := array.NewInt64Builder(fb.mem)
			for _, p := range pos {
				b.Append(fb.rowBase + p)
			}
			cols[i] = b.NewArray()
			b.Release()
		case fb.slot[i] < 0:
			cols[i] = array.MakeArrayOfNull(fb.mem, fb.target.Field(i).Type, int(n))
		case fb.from[i] != nil:
			c, err := fb.castColumn(in.Column(fb.slot[i]), i, pos)
			if err != nil {
				return nil, err
			}
			cols[i] = c
		default:
			cols[i] = in.Column(fb.slot[i])
			cols[i].Retain()
		}
	}
	return array.NewRecordBatch(fb.target, cols, n), nil
}

// castColumn casts a, the file column of target field i whose rows are at
// file positions pos. With deferred set, a value that cannot be cast is
// reported to it and read as null.
func (fb *fileBatch) castColumn(a arrow.Array, i int, pos []int64) (arrow.Array, error) {
	from, to, name := *fb.from[i], fb.fields[i].Type, fb.fields[i].Name
	var keep []bool
	in := a
	for {
		c, err := cast.Array(fb.mem, in, from, to)
		var ve *cast.ValueError
		if err == nil || !errors.As(err, &ve) || ve.Index < 0 || ve.Index >= len(pos) {
			if in != a {
				in.Release()
			}
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", name, err)
			}
			return c, nil
		}
		ve.Row = pos[ve.Index] + 1
		err = fmt.Errorf("column %s: %w", name, err)
		if fb.deferred == nil {
			if in != a {
				in.Release()
			}
			return nil, err
		}
		fb.deferred(fb.rowBase+pos[ve.Index], name, err)
		if keep == nil {
			keep = make([]bool, a.Len())
			for k := range keep {
				keep[k] = true
			}
		}
		keep[ve.Index] = false
		masked, merr := maskRows(a, keep, fb.mem)
		if in != a {
			in.Release()
		}
		if merr != nil {
			return nil, merr
		}
		in = masked
	}
}

// test clears keep[i] for the rows of raw the filter rejects, casting the
// filter's columns (of the rows still kept) first.
func (fb *fileBatch) test(raw arrow.RecordBatch, keep []bool, first int64) error {
	used := fb.filter.Fields()
	for _, i := range used {
		if i >= len(fb.colOf) || fb.colOf[i] < 0 {
			return nil // a filter column not read here: finish reports it
		}
	}
	cols := make([]arrow.Array, len(fb.fFields))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for _, i := range used {
		if cols[i] != nil {
			continue
		}
		j := fb.colOf[i]
		switch {
		case fb.slot[j] < 0:
			cols[i] = array.MakeArrayOfNull(fb.mem, fb.target.Field(j).Type, int(raw.NumRows()))
		case fb.from[j] != nil:
			// Cast only the kept rows, so a deleted row's value fails nothing.
			c, err := castKept(raw.Column(fb.slot[j]), *fb.from[j], fb.fields[j].Type, keep, first, fb.mem)
			if err != nil {
				return fmt.Errorf("column %s: %w", fb.fields[j].Name, err)
			}
			cols[i] = c
		default:
			cols[i] = raw.Column(fb.slot[j])
			cols[i].Retain()
		}
	}
	values := make([]any, len(fb.fFields))
	for r := range keep {
		if !keep[r] {
			continue
		}
		for _, i := range used {
			values[i] = valueAt(fb.fFields[i].Type, cols[i], r)
		}
		keep[r] = fb.filter.Test(values)
	}
	return nil
}

// castKept casts column a from → to with the rows not kept set to null
// first, keeping the positions of the rows.
func castKept(a arrow.Array, from, to types.DataType, keep []bool, first int64, mem memory.Allocator) (arrow.Array, error) {
	all := true
	for _, k := range keep {
		all = all && k
	}
	in := a
	if !all {
		masked, err := maskRows(a, keep, mem)
		if err != nil {
			return nil, err
		}
		defer masked.Release()
		in = masked
	}
	c, err := cast.Array(mem, in, from, to)
	if err != nil {
		var ve *cast.ValueError
		if errors.As(err, &ve) {
			ve.Row = first + int64(ve.Index) + 1
		}
		return nil, err
	}
	return c, nil
}

// maskRows returns a with the rows whose keep is false set to null.
func maskRows(a arrow.Array, keep []bool, mem memory.Allocator) (arrow.Array, error) {
	// Concatenate kept ranges with null runs between them.
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for i := 0; i < len(keep); {
		j := i + 1
		for j < len(keep) && keep[j] == keep[i] {
			j++
		}
		if keep[i] {
			parts = append(parts, array.NewSlice(a, int64(i), int64(j)))
		} else {
			parts = append(parts, array.MakeArrayOfNull(mem, a.DataType(), j-i))
		}
		i = j
	}
	return array.Concatenate(parts, mem)
}
