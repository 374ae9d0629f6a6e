package merge

// Data-driven scenarios in testdata/*.txt, one scenario per file (the style
// of cockroachdb/pebble's testdata). Grammar, line based ('#' starts a
// comment line, blank lines separate directives):
//
//	table [thin]               table fields, one per following line: NAME TYPE [NOT NULL]
//	  k INT NOT NULL           types: TINYINT SMALLINT INT BIGINT FLOAT DOUBLE BOOLEAN STRING
//	  v STRING                 VARCHAR(n) BYTES DECIMAL(p,s) DATE TIMESTAMP(p) ARRAY<INT>
//	pk k[,k2]                  primary key; "thin" omits the _KEY_ columns
//	option key=value           a table option (repeatable)
//	run                        starts a sorted run; each row line is
//	  SEQ KIND v1 v2 ...       sequence number, +I/-U/+U/-D, then all table fields
//	  --                       batch boundary inside the run
//	  empty                    an empty batch
//	merge [args]               merge all runs so far; expected rows follow, one per line
//	                           args: drop-deletes, layout=values|kind|kv (default kind),
//	                           batch-size=N, show-batches, read=f1,f2 (value projection)
//	                           expected "error ErrName" lines expect a failure
//	config-error ErrName       NewConfig must fail with this sentinel
//
// Values: null, numbers, true/false, strings (double-quote those with spaces
// or empty), decimals as 12.30, dates 2024-01-31, timestamps
// 2024-01-31T10:00:00.123, bytes 0x0a0b, arrays [1,2,null]. Output rows print
// the same way; the kind layout prefixes the row kind, the kv layout prints
// all columns (keys, sequence, kind, values).

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			defer mem.AssertSize(t, 0)
			runScenario(t, f, mem)
		})
	}
}

type scenario struct {
	t       *testing.T
	file    string
	mem     memory.Allocator
	fields  []types.DataField
	pk      []string
	thin    bool
	options map[string]string
	runs    [][][]string // run -> rows (nil row = batch boundary, []string{"empty"} = empty batch)
}

func runScenario(t *testing.T, file string, mem memory.Allocator) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario{t: t, file: file, mem: mem, options: map[string]string{}}
	lines := strings.Split(string(raw), "\n")
	merges := 0
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		body := func() []string {
			var out []string
			for i+1 < len(lines) {
				l := strings.TrimSpace(lines[i+1])
				if l == "" {
					break
				}
				i++
				if strings.HasPrefix(l, "#") {
					continue
				}
				out = append(out, l)
			}
			return out
		}
		switch word {
		case "table":
			sc.thin = strings.TrimSpace(rest) == "thin"
			for _, l := range body() {
				sc.fields = append(sc.fields, parseField(t, len(sc.fields), l))
			}
		case "pk":
			sc.pk = strings.Split(strings.TrimSpace(rest), ",")
		case "option":
			k, v, ok := strings.Cut(rest, "=")
			if !ok {
				t.Fatalf("%s:%d: option without '='", file, i+1)
			}
			sc.options[strings.TrimSpace(k)] = v
		case "run":
			var rows [][]string
			for _, l := range body() {
				switch l {
				case "--":
					rows = append(rows, nil)
				case "empty":
					rows = append(rows, nil, []string{"empty"}, nil)
				default:
					rows = append(rows, tokenize(t, l))
				}
			}
			sc.runs = append(sc.runs, rows)
		case "config-error":
			_, err := NewConfig(sc.options, sc.fields, sc.pk)
			checkSentinel(t, fmt.Sprintf("%s:%d", file, i+1), err, strings.TrimSpace(rest))
		case "merge":
			merges++
			want := body()
			got := sc.merge(i+1, strings.Fields(rest))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s:%d: merge %s\n got:\n  %s\nwant:\n  %s", file, i+1, rest,
					strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		default:
			t.Fatalf("%s:%d: unknown directive %q", file, i+1, word)
		}
	}
	if merges == 0 && !strings.Contains(string(raw), "config-error") {
		t.Fatalf("%s: scenario has no merge", file)
	}
}

var sentinels = map[string]error{
	"ErrInvalidOption": ErrInvalidOption, "ErrUnsupported": ErrUnsupported, "ErrSchema": ErrSchema,
	"ErrUnsorted": ErrUnsorted, "ErrRetract": ErrRetract, "ErrArithmetic": ErrArithmetic,
	"ErrNull": ErrNull, "ErrValueKind": ErrValueKind, "ErrCorruptValue": ErrCorruptValue,
}

func checkSentinel(t *testing.T, where string, err error, name string) {
	t.Helper()
	want, ok := sentinels[name]
	if !ok {
		t.Fatalf("%s: unknown sentinel %q", where, name)
	}
	if !errors.Is(err, want) {
		t.Errorf("%s: got error %v, want %s", where, err, name)
	}
}

func sentinelName(err error) string {
	for name, s := range sentinels {
		if errors.Is(err, s) {
			return name
		}
	}
	return "unknown(" + err.Error() + ")"
}

func tokenize(t *testing.T, line string) []string {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				t.Fatalf("unterminated quote in %q", line)
			}
			out = append(out, line[:end+2])
			line = line[end+2:]
			continue
		}
		tok, rest, _ := strings.Cut(line, " ")
		out = append(out, tok)
		line = rest
	}
	return out
}

func parseField(t *testing.T, id int, line string) types.DataField {
	parts := strings.Fields(line)
	if len(parts) < 2 {
		t.Fatalf("bad field line %q", line)
	}
	dt := parseType(t, parts[1])
	dt.Nullable = !(len(parts) >= 4 && parts[2] == "NOT" && parts[3] == "NULL")
	return types.DataField{ID: id, Name: parts[0], Type: dt}
}

func parseType(t *testing.T, s string) types.DataType {
	args := func(prefix string) []int {
		inner := strings.TrimSuffix(strings.TrimPrefix(s, prefix+"("), ")")
		var out []int
		for _, p := range strings.Split(inner, ",") {
			n, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("bad type %q", s)
			}
			out = append(out, n)
		}
		return out
	}
	switch {
	case s == "TINYINT":
		return types.DataType{Kind: types.KindTinyInt}
	case s == "SMALLINT":
		return types.DataType{Kind: types.KindSmallInt}
	case s == "INT":
		return types.DataType{Kind: types.KindInt}
	case s == "BIGINT":
		return types.DataType{Kind: types.KindBigInt}
	case s == "FLOAT":
		return types.DataType{Kind: types.KindFloat}
	case s == "DOUBLE":
		return types.DataType{Kind: types.KindDouble}
	case s == "BOOLEAN":
		return types.DataType{Kind: types.KindBoolean}
	case s == "STRING":
		return types.DataType{Kind: types.KindVarChar, Length: types.MaxLength}
	case strings.HasPrefix(s, "VARCHAR("):
		return types.DataType{Kind: types.KindVarChar, Length: args("VARCHAR")[0]}
	case s == "BYTES":
		return types.DataType{Kind: types.KindVarBinary, Length: types.MaxLength}
	case strings.HasPrefix(s, "DECIMAL("):
		a := args("DECIMAL")
		return types.DataType{Kind: types.KindDecimal, Precision: a[0], Scale: a[1]}
	case s == "DATE":
		return types.DataType{Kind: types.KindDate}
	case strings.HasPrefix(s, "TIMESTAMP("):
		return types.DataType{Kind: types.KindTimestamp, Precision: args("TIMESTAMP")[0]}
	case strings.HasPrefix(s, "ARRAY<") && strings.HasSuffix(s, ">"):
		e := parseType(t, s[len("ARRAY<"):len(s)-1])
		e.Nullable = true
		return types.DataType{Kind: types.KindArray, Elem: &e}
	case strings.HasPrefix(s, "MAP<") && strings.HasSuffix(s, ">"):
		kv := splitTop(s[len("MAP<"):len(s)-1], ',')
		if len(kv) != 2 {
			t.Fatalf("bad type %q", s)
		}
		k, v := parseType(t, kv[0]), parseType(t, kv[1])
		v.Nullable = true
		return types.DataType{Kind: types.KindMap, Key: &k, Value: &v}
	case strings.HasPrefix(s, "ROW<") && strings.HasSuffix(s, ">"):
		rt := types.DataType{Kind: types.KindRow}
		for i, f := range splitTop(s[len("ROW<"):len(s)-1], ';') {
			name, ft, ok := strings.Cut(f, ":")
			if !ok {
				t.Fatalf("bad row field %q in %q", f, s)
			}
			dt := parseType(t, ft)
			dt.Nullable = true
			rt.Fields = append(rt.Fields, types.DataField{ID: 1000 + i, Name: name, Type: dt})
		}
		return rt
	}
	t.Fatalf("unknown type %q", s)
	return types.DataType{}
}

// arrowType is the project's Paimon -> Arrow mapping for the types the tests use.
func arrowType(dt types.DataType) arrow.DataType {
	switch dt.Kind {
	case types.KindTinyInt:
		return arrow.PrimitiveTypes.Int8
	case types.KindSmallInt:
		return arrow.PrimitiveTypes.Int16
	case types.KindInt:
		return arrow.PrimitiveTypes.Int32
	case types.KindBigInt:
		return arrow.PrimitiveTypes.Int64
	case types.KindFloat:
		return arrow.PrimitiveTypes.Float32
	case types.KindDouble:
		return arrow.PrimitiveTypes.Float64
	case types.KindBoolean:
		return arrow.FixedWidthTypes.Boolean
	case types.KindVarChar, types.KindChar:
		return arrow.BinaryTypes.String
	case types.KindVarBinary, types.KindBinary:
		return arrow.BinaryTypes.Binary
	case types.KindDecimal:
		return &arrow.Decimal128Type{Precision: int32(dt.Precision), Scale: int32(dt.Scale)}
	case types.KindDate:
		return arrow.FixedWidthTypes.Date32
	case types.KindTimestamp:
		unit := arrow.Millisecond
		if dt.Precision > 6 {
			unit = arrow.Nanosecond
		} else if dt.Precision > 3 {
			unit = arrow.Microsecond
		}
		return &arrow.TimestampType{Unit: unit}
	case types.KindArray:
		return arrow.ListOf(arrowType(*dt.Elem))
	case types.KindMap:
		return arrow.MapOf(arrowType(*dt.Key), arrowType(*dt.Value))
	case types.KindRow:
		fs := make([]arrow.Field, len(dt.Fields))
		for i, f := range dt.Fields {
			fs[i] = arrow.Field{Name: f.Name, Type: arrowType(f.Type), Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
	panic(fmt.Sprintf("unmapped kind %d", dt.Kind))
}

// inputSchema builds the KeyValue layout for the table, with the value
// columns restricted to read (all fields when nil).
func (sc *scenario) inputSchema(read []string) (*arrow.Schema, []int, []int) {
	var fields []arrow.Field
	var keyCols []int
	if !sc.thin {
		for _, pk := range sc.pk {
			f := sc.field(pk)
			keyCols = append(keyCols, len(fields))
			fields = append(fields, arrow.Field{Name: "_KEY_" + pk, Type: arrowType(f.Type), Nullable: f.Type.Nullable})
		}
	}
	fields = append(fields,
		arrow.Field{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8})
	var valueFields []int // table field index per value column
	if read == nil {
		for i := range sc.fields {
			valueFields = append(valueFields, i)
		}
	} else {
		for _, name := range read {
			valueFields = append(valueFields, sc.fieldIndex(name))
		}
	}
	colOf := map[string]int{}
	for _, fi := range valueFields {
		f := sc.fields[fi]
		colOf[f.Name] = len(fields)
		fields = append(fields, arrow.Field{Name: f.Name, Type: arrowType(f.Type), Nullable: f.Type.Nullable})
	}
	if sc.thin {
		for _, pk := range sc.pk {
			keyCols = append(keyCols, colOf[pk])
		}
	}
	return arrow.NewSchema(fields, nil), keyCols, valueFields
}

func (sc *scenario) fieldIndex(name string) int {
	for i, f := range sc.fields {
		if f.Name == name {
			return i
		}
	}
	sc.t.Fatalf("%s: no field %q", sc.file, name)
	return -1
}

func (sc *scenario) field(name string) types.DataField { return sc.fields[sc.fieldIndex(name)] }

func (sc *scenario) merge(line int, args []string) []string {
	t := sc.t
	opts := Options{Layout: LayoutKindValues, Allocator: sc.mem}
	showBatches := false
	var read []string
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "drop-deletes":
			opts.DropDeletes = true
		case "show-batches":
			showBatches = true
		case "batch-size":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			opts.BatchSize = n
		case "layout":
			opts.Layout = map[string]Layout{"values": LayoutValues, "kind": LayoutKindValues, "kv": LayoutKeyValue}[v]
		case "read":
			read = strings.Split(v, ",")
		default:
			t.Fatalf("%s:%d: unknown merge arg %q", sc.file, line, a)
		}
	}
	cfg, err := NewConfig(sc.options, sc.fields, sc.pk)
	if err != nil {
		return []string{"error " + sentinelName(err)}
	}
	schema, keyCols, valueFields := sc.inputSchema(read)
	opts.KeyColumns = keyCols
	var runs []Run
	for _, rows := range sc.runs {
		runs = append(runs, RunOf(sc.buildBatches(schema, valueFields, rows)...))
	}
	var out []string
	nb := 0
	for rec, err := range Merge(context.Background(), cfg, schema, runs, opts) {
		if err != nil {
			out = append(out, "error "+sentinelName(err))
			break
		}
		if showBatches {
			out = append(out, fmt.Sprintf("batch %d", nb))
		}
		nb++
		if opts.BatchSize > 0 && int(rec.NumRows()) > opts.BatchSize {
			t.Errorf("%s:%d: batch of %d rows exceeds batch-size %d", sc.file, line, rec.NumRows(), opts.BatchSize)
		}
		if rec.NumRows() == 0 {
			t.Errorf("%s:%d: empty output batch", sc.file, line)
		}
		for r := range int(rec.NumRows()) {
			var toks []string
			for c := range int(rec.NumCols()) {
				name := rec.Schema().Field(c).Name
				if name == ValueKindColumn {
					toks = append(toks, KindString(rec.Column(c).(*array.Int8).Value(r)))
					continue
				}
				toks = append(toks, formatValue(rec.Column(c), r))
			}
			out = append(out, strings.Join(toks, " "))
		}
		rec.Release()
	}
	return out
}

func (sc *scenario) buildBatches(schema *arrow.Schema, valueFields []int, rows [][]string) []arrow.RecordBatch {
	t := sc.t
	var batches []arrow.RecordBatch
	bld := array.NewRecordBuilder(sc.mem, schema)
	defer bld.Release()
	pending := 0
	flush := func(force bool) {
		if pending == 0 && !force {
			return
		}
		batches = append(batches, bld.NewRecordBatch())
		pending = 0
	}
	for _, row := range rows {
		if row == nil {
			flush(false)
			continue
		}
		if len(row) == 1 && row[0] == "empty" {
			flush(true)
			continue
		}
		if len(row) != 2+len(sc.fields) {
			t.Fatalf("%s: row %v has %d tokens, want seq, kind and %d fields", sc.file, row, len(row), len(sc.fields))
		}
		col := 0
		if !sc.thin {
			for _, pk := range sc.pk {
				fi := sc.fieldIndex(pk)
				appendValue(t, bld.Field(col), sc.fields[fi].Type, row[2+fi])
				col++
			}
		}
		seq, err := strconv.ParseInt(row[0], 10, 64)
		if err != nil {
			t.Fatalf("%s: bad sequence %q", sc.file, row[0])
		}
		bld.Field(col).(*array.Int64Builder).Append(seq)
		kind := map[string]int8{"+I": 0, "-U": 1, "+U": 2, "-D": 3}
		k, ok := kind[row[1]]
		if !ok {
			n, err := strconv.Atoi(row[1])
			if err != nil {
				t.Fatalf("%s: bad kind %q", sc.file, row[1])
			}
			k = int8(n)
		}
		bld.Field(col + 1).(*array.Int8Builder).Append(k)
		col += 2
		for _, fi := range valueFields {
			appendValue(t, bld.Field(col), sc.fields[fi].Type, row[2+fi])
			col++
		}
		pending++
	}
	flush(false)
	return batches
}

func appendValue(t *testing.T, b array.Builder, dt types.DataType, tok string) {
	if tok == "null" {
		b.AppendNull()
		return
	}
	fail := func(err error) {
		t.Fatalf("bad %v value %q: %v", dt.Kind, tok, err)
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		n, err := strconv.ParseInt(tok, 10, 8)
		if err != nil {
			fail(err)
		}
		bb.Append(int8(n))
	case *array.Int16Builder:
		n, err := strconv.ParseInt(tok, 10, 16)
		if err != nil {
			fail(err)
		}
		bb.Append(int16(n))
	case *array.Int32Builder:
		n, err := strconv.ParseInt(tok, 10, 32)
		if err != nil {
			fail(err)
		}
		bb.Append(int32(n))
	case *array.Int64Builder:
		n, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			fail(err)
		}
		bb.Append(n)
	case *array.Float32Builder:
		f, err := strconv.ParseFloat(tok, 32)
		if err != nil {
			fail(err)
		}
		bb.Append(float32(f))
	case *array.Float64Builder:
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			fail(err)
		}
		bb.Append(f)
	case *array.BooleanBuilder:
		v, err := strconv.ParseBool(tok)
		if err != nil {
			fail(err)
		}
		bb.Append(v)
	case *array.StringBuilder:
		if strings.HasPrefix(tok, `"`) {
			tok = tok[1 : len(tok)-1]
		}
		bb.Append(tok)
	case *array.BinaryBuilder:
		v, err := hex.DecodeString(strings.TrimPrefix(tok, "0x"))
		if err != nil {
			fail(err)
		}
		bb.Append(v)
	case *array.Decimal128Builder:
		r, ok := new(big.Rat).SetString(tok)
		if !ok {
			fail(errors.New("not a decimal"))
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Scale)), nil)))
		if !r.IsInt() {
			fail(errors.New("more digits than the scale"))
		}
		bb.Append(decimal128.FromBigInt(r.Num()))
	case *array.Date32Builder:
		d, err := time.Parse("2006-01-02", tok)
		if err != nil {
			fail(err)
		}
		bb.Append(arrow.Date32(d.Unix() / 86400))
	case *array.TimestampBuilder:
		ts, err := time.Parse("2006-01-02T15:04:05.999999999", tok)
		if err != nil {
			fail(err)
		}
		unit := bb.Type().(*arrow.TimestampType).Unit
		v, err := arrow.TimestampFromTime(ts, unit)
		if err != nil {
			fail(err)
		}
		bb.Append(v)
	case *array.ListBuilder:
		inner := strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]")
		bb.Append(true)
		if inner != "" {
			for _, e := range splitTop(inner, ',') {
				appendValue(t, bb.ValueBuilder(), *dt.Elem, e)
			}
		}
	case *array.MapBuilder:
		inner := strings.TrimSuffix(strings.TrimPrefix(tok, "{"), "}")
		bb.Append(true)
		if inner != "" {
			for _, e := range splitTop(inner, ',') {
				kv := splitTop(e, ':')
				if len(kv) != 2 {
					t.Fatalf("bad map entry %q", e)
				}
				appendValue(t, bb.KeyBuilder(), *dt.Key, kv[0])
				appendValue(t, bb.ItemBuilder(), *dt.Value, kv[1])
			}
		}
	case *array.StructBuilder:
		parts := splitTop(strings.TrimSuffix(strings.TrimPrefix(tok, "("), ")"), ',')
		if len(parts) != len(dt.Fields) {
			t.Fatalf("row value %q has %d fields, want %d", tok, len(parts), len(dt.Fields))
		}
		bb.Append(true)
		for i, p := range parts {
			appendValue(t, bb.FieldBuilder(i), dt.Fields[i].Type, p)
		}
	default:
		t.Fatalf("no builder for %T", b)
	}
}

func formatValue(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return "null"
	}
	switch a := arr.(type) {
	case *array.Int8:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int16:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return formatFloat(float64(a.Value(i)), 32)
	case *array.Float64:
		return formatFloat(a.Value(i), 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		s := a.Value(i)
		if s == "" || s == "null" || strings.ContainsAny(s, " \t\"") {
			return `"` + s + `"`
		}
		return s
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		layout := map[arrow.TimeUnit]string{arrow.Millisecond: "2006-01-02T15:04:05.000",
			arrow.Microsecond: "2006-01-02T15:04:05.000000", arrow.Nanosecond: "2006-01-02T15:04:05.000000000"}[unit]
		return a.Value(i).ToTime(unit).UTC().Format(layout)
	case *array.List:
		start, end := a.ValueOffsets(i)
		var parts []string
		for j := start; j < end; j++ {
			parts = append(parts, formatValue(a.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *array.Map:
		start, end := a.ValueOffsets(i)
		var parts []string
		for j := start; j < end; j++ {
			parts = append(parts, formatValue(a.Keys(), int(j))+":"+formatValue(a.Items(), int(j)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.Struct:
		var parts []string
		for f := range a.NumField() {
			parts = append(parts, formatValue(a.Field(f), i))
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	return fmt.Sprintf("?%T", arr)
}

// splitTop splits s at sep outside brackets, braces, parentheses and quotes.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start, quoted := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '{' || c == '(' || c == '<':
			depth++
		case c == ']' || c == '}' || c == ')' || c == '>':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func formatFloat(f float64, bits int) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}
