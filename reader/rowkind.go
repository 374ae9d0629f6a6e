package reader

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// RowKindColumn is the name of the row kind column WithRowKind adds (Java
// SpecialFields.ROW_KIND, the first column of AuditLogTable, the
// "<table>$audit_log" system table).
const RowKindColumn = "rowkind"

// rowKindFieldID is the field id of the rowkind column (Java
// SpecialFields.ROW_KIND: Integer.MAX_VALUE - 4).
const rowKindFieldID = 2147483643

// WithRowKind adds a first output column rowkind, STRING (Arrow utf8,
// nullable like Java's, never null), holding each row's kind as Java's
// AuditLogTable prints it: "+I", "-U", "+U" or "-D". Rows of append tables
// are all "+I". A batch read of a primary-key table gives each key's merged
// row with the kind of its latest record (+I or +U; deletes are dropped);
// a change plan (WithChanges) gives every record with its own kind.
//
// Plan fails with ErrInvalidScan when the table has a column named rowkind.
func WithRowKind() Option { return func(c *config) { c.rowKind = true } }

// withRowKindField prepends the rowkind field to the output fields.
func withRowKindField(ts *schema.TableSchema, fields []types.DataField) ([]types.DataField, error) {
	if _, _, ok := types.FieldByName(ts.Fields, RowKindColumn); ok {
		return nil, fmt.Errorf("%w: WithRowKind on a table with a column named %q", ErrInvalidScan, RowKindColumn)
	}
	out := make([]types.DataField, 0, len(fields)+1)
	out = append(out, types.DataField{ID: rowKindFieldID, Name: RowKindColumn, Type: types.String()})
	return append(out, fields...), nil
}

// rowKindArray builds the rowkind column for n rows: from the int8 kind
// column kinds, or all "+I" when kinds is nil.
func rowKindArray(kinds arrow.Array, n int, mem memory.Allocator) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	if kinds == nil {
		for range n {
			b.Append("+I")
		}
		return b.NewArray(), nil
	}
	k, ok := kinds.(*array.Int8)
	if !ok || k.NullN() > 0 {
		return nil, fmt.Errorf("reader: %s column is %s with %d nulls, want int8 without nulls", merge.ValueKindColumn, kinds.DataType(), kinds.NullN())
	}
	for i := range n {
		v := k.Value(i)
		switch v {
		case merge.KindInsert, merge.KindUpdateBefore, merge.KindUpdateAfter, merge.KindDelete:
			b.Append(merge.KindString(v))
		default:
			return nil, fmt.Errorf("%w: row %d has %s %d", merge.ErrValueKind, i, merge.ValueKindColumn, v)
		}
	}
	return b.NewArray(), nil
}

// moveColumn returns rec with column from moved to the end (zero-copy).
func moveColumn(rec arrow.RecordBatch, from int) arrow.RecordBatch {
	n := int(rec.NumCols())
	fields := make([]arrow.Field, 0, n)
	cols := make([]arrow.Array, 0, n)
	for i := range n {
		if i != from {
			fields = append(fields, rec.Schema().Field(i))
			cols = append(cols, rec.Column(i))
		}
	}
	fields = append(fields, rec.Schema().Field(from))
	cols = append(cols, rec.Column(from))
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// tableFields returns the output fields that are table columns (p.Fields
// without the rowkind column).
func (p *Plan) tableFields() []types.DataField {
	if p.cfg.rowKind && len(p.Fields) > 0 && p.Fields[0].ID == rowKindFieldID {
		return p.Fields[1:]
	}
	return p.Fields
}

// kindLast turns a batch read in the key-value layout without keys
// (_SEQUENCE_NUMBER, _VALUE_KIND, value columns) into the value columns
// followed by _VALUE_KIND, releasing rec.
func (sr *splitRead) kindLast(rec arrow.RecordBatch) arrow.RecordBatch {
	n := int(rec.NumCols())
	fields := make([]arrow.Field, 0, n-1)
	cols := make([]arrow.Array, 0, n-1)
	for i := 2; i < n; i++ {
		fields = append(fields, rec.Schema().Field(i))
		cols = append(cols, rec.Column(i))
	}
	fields = append(fields, rec.Schema().Field(1))
	cols = append(cols, rec.Column(1))
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	rec.Release()
	return out
}
