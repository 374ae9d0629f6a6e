// Package rowfmt writes Arrow record batches read from Paimon tables as text:
// JSON Lines, CSV (RFC 4180) or an aligned table for humans. It is what
// `paimon cat --format jsonl|csv|table` prints, and the JSONL form is the
// format of the expected rows under testdata/paimon-tables/*/expected/.
//
// # JSONL
//
// One JSON object per row, keys = column names in column order, one line
// each ("\n"). Values by Paimon type (Arrow type per the mapping of
// types.ToArrow):
//
//	BOOLEAN                  true / false
//	TINYINT..BIGINT          JSON integer, full int64 precision ("-9223372036854775808")
//	FLOAT, DOUBLE            shortest round-trip decimal for the float's own width
//	                         (FLOAT 3.1 -> 3.1), positional for 1e-6 <= |x| < 1e21, else
//	                         exponent form (1e-7, 1e+21) — the encoding/json rules;
//	                         NaN, +Inf, -Inf -> "NaN", "Infinity", "-Infinity" (strings)
//	DECIMAL(p, s)            string with exactly s fractional digits: "123.45000", "0.12",
//	                         "-0.12", "7" (s = 0)
//	CHAR, VARCHAR            string; invalid UTF-8 bytes are replaced by U+FFFD (JSON
//	                         cannot carry them); no HTML escaping of < > &
//	BINARY, VARBINARY        string, standard padded base64 ("YTMx" for "a31")
//	DATE                     "YYYY-MM-DD" (proleptic Gregorian, like java.time.LocalDate:
//	                         "+10000-01-01", "-0001-12-31" outside 0000..9999)
//	TIME(p)                  "HH:MM:SS" plus p fractional digits
//	TIMESTAMP(p)             "YYYY-MM-DDTHH:MM:SS" plus p fractional digits (UTC wall clock)
//	TIMESTAMP(p) WITH LOCAL TIME ZONE   the same with a trailing "Z"
//	ARRAY                    JSON array
//	MAP, MULTISET            JSON array of [key, value] pairs in stored order
//	                         (MULTISET: [element, count])
//	ROW                      JSON object keyed by field name in field order
//	VARIANT                  string holding Java's Variant.toJson text (UTC):
//	                         "{\"a\":1}", "1.0E10", "\"s\"" (package variant)
//	null                     null
//
// The precision p of TIME and TIMESTAMP columns comes from Options.Fields
// when given (so TIMESTAMP(0), stored as Arrow milliseconds, prints no
// fraction); otherwise from the Arrow unit (s 0, ms 3, µs 6, ns 9 digits),
// and an Arrow timestamp with a time zone counts as WITH LOCAL TIME ZONE. A
// value with non-zero digits beyond p is never truncated: it is printed
// with the fewest of 3, 6 or 9 digits that show it exactly. Pre-epoch
// values use floor division (1969-12-31T23:59:59.999 for -1 ms).
//
// # CSV
//
// A header row of column names (unless Options.NoHeader), then one record
// per row through encoding/csv (RFC 4180 quoting, "\n" line ends). Cells
// hold the JSONL text without JSON quoting: strings raw, DECIMAL/DATE/TIME/
// TIMESTAMP/base64 text as above, nested values as their JSON text; null is
// the empty field (so an empty string and null look alike in CSV).
//
// # Table
//
// Column names, a rule, then the rows with columns padded to a common width
// (numbers right-aligned), and a final "(N rows)" line. Cells are the CSV
// text with control characters escaped, null shown as NULL, and cut to
// Options.MaxWidth runes with a trailing "…". The table is buffered until
// Close, so it is meant for results that fit in memory.
package rowfmt

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/types"
)

// Errors returned by this package; test with errors.Is.
var (
	// ErrUnknownFormat is returned by ParseFormat and NewWriter for a format
	// name or value that is not one of JSONL, CSV, Table.
	ErrUnknownFormat = errors.New("rowfmt: unknown format")
	// ErrUnsupportedType is returned when a column has an Arrow type that has
	// no text form here (e.g. run-end encoded or interval arrays).
	ErrUnsupportedType = errors.New("rowfmt: unsupported arrow type")
	// ErrSchemaMismatch is returned when a record's columns differ from those
	// of the first record written, or from Options.Fields.
	ErrSchemaMismatch = errors.New("rowfmt: schema mismatch")
	// ErrClosed is returned by Write after Close.
	ErrClosed = errors.New("rowfmt: writer closed")
)

// Format selects the text form written by a Writer.
type Format int

// The formats.
const (
	// JSONL is JSON Lines: one object per row.
	JSONL Format = iota + 1
	// CSV is RFC 4180 comma-separated values with a header row.
	CSV
	// Table is an aligned text table for humans.
	Table
)

// String returns the name accepted by ParseFormat: "jsonl", "csv", "table".
func (f Format) String() string {
	switch f {
	case JSONL:
		return "jsonl"
	case CSV:
		return "csv"
	case Table:
		return "table"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat maps "jsonl" (or "json"), "csv" and "table" to a Format; any
// other name yields ErrUnknownFormat.
func ParseFormat(name string) (Format, error) {
	switch strings.ToLower(name) {
	case "jsonl", "json":
		return JSONL, nil
	case "csv":
		return CSV, nil
	case "table":
		return Table, nil
	}
	return 0, fmt.Errorf("%w: %q (want jsonl, csv or table)", ErrUnknownFormat, name)
}

// DefaultMaxWidth is the Table cell width cap used when Options.MaxWidth is 0.
const DefaultMaxWidth = 40

// Options tunes a Writer. The zero value is valid.
type Options struct {
	// Fields are the Paimon fields of the record columns, one per column in
	// the same order (nested types must match the Arrow shape). They give
	// TIME/TIMESTAMP precision and the local-time-zone flag; nil derives
	// both from the Arrow types.
	Fields []types.DataField
	// NoHeader omits the CSV header row.
	NoHeader bool
	// MaxWidth caps Table cells, in runes (minimum 2); 0 means
	// DefaultMaxWidth.
	MaxWidth int
}

// Writer writes record batches in one Format to an io.Writer. All batches
// must have the same columns. It is not safe for concurrent use.
type Writer struct {
	out    io.Writer
	format Format
	opts   Options

	schema *arrow.Schema     // columns of the first record written
	types  []*types.DataType // per column, nil when unknown
	buf    []byte
	csv    *csv.Writer
	table  *tableBuffer
	closed bool
}

// NewWriter returns a Writer of format f to out. opts may be nil.
func NewWriter(out io.Writer, f Format, opts *Options) (*Writer, error) {
	if f != JSONL && f != CSV && f != Table {
		return nil, fmt.Errorf("%w: %v", ErrUnknownFormat, f)
	}
	w := &Writer{out: out, format: f}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.MaxWidth == 0 {
		w.opts.MaxWidth = DefaultMaxWidth
	}
	w.opts.MaxWidth = max(w.opts.MaxWidth, 2)
	if f == CSV {
		w.csv = csv.NewWriter(out)
	}
	return w, nil
}

// Write writes the rows of rec. The first call fixes the columns (and, for
// CSV, writes the header; a zero-row record may be written just for that);
// later records must have the same column names and Arrow types, else
// ErrSchemaMismatch. A column of an unsupported Arrow type yields
// ErrUnsupportedType; output already written for earlier rows of rec stays
// written.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.closed {
		return ErrClosed
	}
	if err := w.bind(rec.Schema()); err != nil {
		return err
	}
	switch w.format {
	case JSONL:
		return w.writeJSONL(rec)
	case CSV:
		return w.writeCSV(rec)
	default:
		return w.table.add(rec, w.types)
	}
}

// Close flushes buffered output (the whole Table format is written here)
// and marks the writer closed. It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	switch w.format {
	case CSV:
		w.csv.Flush()
		return w.csv.Error()
	case Table:
		if w.table == nil {
			return nil
		}
		return w.table.render(w.out)
	}
	return nil
}

// bind records the schema of the first record and checks later ones.
func (w *Writer) bind(s *arrow.Schema) error {
	if w.schema != nil {
		if s.NumFields() != w.schema.NumFields() {
			return fmt.Errorf("%w: record has %d columns, first record had %d", ErrSchemaMismatch, s.NumFields(), w.schema.NumFields())
		}
		for i := range s.NumFields() {
			a, b := s.Field(i), w.schema.Field(i)
			if a.Name != b.Name || !arrow.TypeEqual(a.Type, b.Type) {
				return fmt.Errorf("%w: column %d is %s %s, first record had %s %s", ErrSchemaMismatch, i, a.Name, a.Type, b.Name, b.Type)
			}
		}
		return nil
	}
	if w.opts.Fields != nil && len(w.opts.Fields) != s.NumFields() {
		return fmt.Errorf("%w: record has %d columns, Options.Fields has %d", ErrSchemaMismatch, s.NumFields(), len(w.opts.Fields))
	}
	w.types = make([]*types.DataType, s.NumFields())
	for i := range s.NumFields() {
		if w.opts.Fields == nil {
			continue
		}
		f := &w.opts.Fields[i]
		if err := checkType(&f.Type, s.Field(i).Type); err != nil {
			return fmt.Errorf("column %s: %w", s.Field(i).Name, err)
		}
		w.types[i] = &f.Type
	}
	w.schema = s
	switch w.format {
	case CSV:
		if !w.opts.NoHeader {
			names := make([]string, s.NumFields())
			for i := range names {
				names[i] = string(appendValidUTF8(nil, s.Field(i).Name))
			}
			if err := w.csv.Write(names); err != nil {
				return err
			}
		}
	case Table:
		w.table = newTableBuffer(s, w.opts.MaxWidth)
	}
	return nil
}

func (w *Writer) writeJSONL(rec arrow.RecordBatch) error {
	cols := rec.Columns()
	names := w.schema.Fields()
	for r := range int(rec.NumRows()) {
		buf := append(w.buf[:0], '{')
		for c, col := range cols {
			if c > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, names[c].Name)
			buf = append(buf, ':')
			var err error
			if buf, err = appendJSON(buf, col, r, w.types[c]); err != nil {
				return fmt.Errorf("column %s row %d: %w", names[c].Name, r, err)
			}
		}
		buf = append(buf, '}', '\n')
		w.buf = buf
		if _, err := w.out.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) writeCSV(rec arrow.RecordBatch) error {
	cols := rec.Columns()
	cells := make([]string, len(cols))
	for r := range int(rec.NumRows()) {
		for c, col := range cols {
			if col.IsNull(r) {
				cells[c] = ""
				continue
			}
			var err error
			if w.buf, err = appendText(w.buf[:0], col, r, w.types[c]); err != nil {
				return fmt.Errorf("column %s row %d: %w", w.schema.Field(c).Name, r, err)
			}
			cells[c] = string(w.buf)
		}
		if err := w.csv.Write(cells); err != nil {
			return err
		}
	}
	return nil
}

// checkType reports ErrSchemaMismatch when the Paimon type dt cannot be the
// type of an Arrow column of type at (per the mapping of types.ToArrow).
// Dictionary and extension types are checked by their value/storage type.
func checkType(dt *types.DataType, at arrow.DataType) error {
	switch t := at.(type) {
	case *arrow.DictionaryType:
		return checkType(dt, t.ValueType)
	case arrow.ExtensionType:
		return checkType(dt, t.StorageType())
	}
	mismatch := func() error {
		return fmt.Errorf("%w: paimon kind %d does not fit arrow type %s", ErrSchemaMismatch, dt.Kind, at)
	}
	switch dt.Kind {
	case types.KindVariant:
		st, ok := at.(*arrow.StructType)
		if !ok {
			return mismatch()
		}
		for _, name := range []string{"value", "metadata"} {
			f, ok := st.FieldByName(name)
			if !ok || !arrow.TypeEqual(f.Type, arrow.BinaryTypes.Binary) {
				return mismatch()
			}
		}
		return nil
	case types.KindRow:
		st, ok := at.(*arrow.StructType)
		if !ok || st.NumFields() != len(dt.Fields) {
			return mismatch()
		}
		for j := range dt.Fields {
			if err := checkType(&dt.Fields[j].Type, st.Field(j).Type); err != nil {
				return err
			}
		}
		return nil
	case types.KindMap, types.KindMultiset:
		mt, ok := at.(*arrow.MapType)
		if !ok {
			return mismatch()
		}
		key, value := mapTypes(dt)
		if key == nil {
			return mismatch()
		}
		if err := checkType(key, mt.KeyType()); err != nil {
			return err
		}
		if value != nil {
			return checkType(value, mt.ItemType())
		}
		return nil
	case types.KindArray:
		lt, ok := at.(arrow.ListLikeType)
		if !ok || dt.Elem == nil {
			return mismatch()
		}
		if _, isMap := at.(*arrow.MapType); isMap {
			return mismatch()
		}
		return checkType(dt.Elem, lt.Elem())
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		if at.ID() != arrow.TIMESTAMP {
			return mismatch()
		}
	case types.KindTime:
		if at.ID() != arrow.TIME32 && at.ID() != arrow.TIME64 {
			return mismatch()
		}
	default:
		// Scalars: nested Arrow types cannot hold them.
		switch at.(type) {
		case *arrow.StructType, *arrow.MapType, arrow.ListLikeType:
			return mismatch()
		}
	}
	return nil
}
