package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// errBadRow marks a JSONL line that does not fit the table schema.
var errBadRow = errors.New("bad input row")

// jsonlReader decodes JSON Lines, in the form `paimon cat --format jsonl`
// prints (package rowfmt), into Arrow batches of a table's columns
// (types.SchemaToArrow(fields)). Each line is one JSON object keyed by
// column name; a missing key is null, an unknown key is an error. Blank
// lines are skipped. Values by type:
//
//	BOOLEAN                 true / false
//	TINYINT..BIGINT         JSON integer (range-checked)
//	FLOAT, DOUBLE           JSON number, or "NaN", "Infinity", "-Infinity"
//	DECIMAL(p, s)           string or number with at most s fractional digits
//	                        (extra trailing zeros allowed) and at most p digits
//	CHAR, VARCHAR           string
//	BINARY, VARBINARY       standard base64 string
//	DATE                    "YYYY-MM-DD" ("+10000-01-01", "-0001-12-31" beyond 0000..9999)
//	TIME(p)                 "HH:MM:SS[.fff]"
//	TIMESTAMP(p)            "YYYY-MM-DDTHH:MM:SS[.f…]" (UTC wall clock); a trailing
//	                        "Z" is accepted; WITH LOCAL TIME ZONE alike
//	ARRAY                   JSON array
//	MAP                     array of [key, value] pairs; MULTISET: [element, count]
//	ROW                     object keyed by field name
//
// Fractional second digits beyond what the column's Arrow unit holds must
// be zero.
type jsonlReader struct {
	in     *bufio.Reader
	fields []types.DataField
	schema *arrow.Schema
	index  map[string]int
	batch  int
	line   int
	mem    memory.Allocator
}

func newJSONLReader(r io.Reader, fields []types.DataField, batchRows int) *jsonlReader {
	idx := make(map[string]int, len(fields))
	for i, f := range fields {
		idx[f.Name] = i
	}
	return &jsonlReader{
		in: bufio.NewReaderSize(r, 1<<20), fields: fields, schema: types.SchemaToArrow(fields),
		index: idx, batch: batchRows, mem: memory.DefaultAllocator,
	}
}

// Next returns the next batch of up to batch rows, or io.EOF at the end.
// Errors name the line and column and wrap errBadRow.
func (r *jsonlReader) Next() (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(r.mem, r.schema)
	defer b.Release()
	rows := 0
	seen := make([]bool, len(r.fields))
	for rows < r.batch {
		line, err := r.in.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		atEOF := errors.Is(err, io.EOF)
		if len(bytes.TrimSpace(line)) > 0 {
			r.line++
			if err := r.appendRow(b, line, seen); err != nil {
				return nil, err
			}
			rows++
		} else if !atEOF {
			r.line++
		}
		if atEOF {
			break
		}
	}
	if rows == 0 {
		return nil, io.EOF
	}
	return b.NewRecordBatch(), nil
}

func (r *jsonlReader) appendRow(b *array.RecordBuilder, line []byte, seen []bool) error {
	obj, err := objectOf(line)
	if err != nil {
		return fmt.Errorf("%w: line %d: %v", errBadRow, r.line, err)
	}
	clear(seen)
	// A failing value leaves the builder with a partial row; the caller
	// drops the whole batch, so such a row never reaches a write.
	for _, kv := range obj {
		i, ok := r.index[kv.key]
		if !ok {
			return fmt.Errorf("%w: line %d: %q is not a table column", errBadRow, r.line, kv.key)
		}
		if seen[i] {
			return fmt.Errorf("%w: line %d: duplicate key %q", errBadRow, r.line, kv.key)
		}
		seen[i] = true
		if err := appendValue(b.Field(i), r.fields[i].Type, kv.value); err != nil {
			return fmt.Errorf("%w: line %d: column %q: %v", errBadRow, r.line, kv.key, err)
		}
	}
	for i, ok := range seen {
		if !ok {
			b.Field(i).AppendNull()
		}
	}
	return nil
}

type keyValue struct {
	key   string
	value json.RawMessage
}

// objectOf splits a JSON object into its members in document order.
func objectOf(data []byte) ([]keyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []keyValue
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, keyValue{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the object")
	}
	return out, nil
}

func isNullJSON(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func jsonString(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("want a string, got %s", truncateJSON(v))
	}
	return s, nil
}

func truncateJSON(v json.RawMessage) string {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// appendValue appends the JSON value v of Paimon type t to b (a builder of
// types.ToArrow(t)).
func appendValue(b array.Builder, t types.DataType, v json.RawMessage) error {
	if isNullJSON(v) {
		b.AppendNull()
		return nil
	}
	switch t.Kind {
	case types.KindBoolean:
		var x bool
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("want true or false, got %s", truncateJSON(v))
		}
		b.(*array.BooleanBuilder).Append(x)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		bits := map[types.Kind]int{types.KindTinyInt: 8, types.KindSmallInt: 16, types.KindInt: 32, types.KindBigInt: 64}[t.Kind]
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, bits)
		if err != nil {
			return fmt.Errorf("want a %d-bit integer, got %s", bits, truncateJSON(v))
		}
		switch bb := b.(type) {
		case *array.Int8Builder:
			bb.Append(int8(n))
		case *array.Int16Builder:
			bb.Append(int16(n))
		case *array.Int32Builder:
			bb.Append(int32(n))
		case *array.Int64Builder:
			bb.Append(n)
		}
	case types.KindFloat, types.KindDouble:
		bits := 64
		if t.Kind == types.KindFloat {
			bits = 32
		}
		f, err := parseFloat(v, bits)
		if err != nil {
			return err
		}
		if bits == 32 {
			b.(*array.Float32Builder).Append(float32(f))
		} else {
			b.(*array.Float64Builder).Append(f)
		}
	case types.KindDecimal:
		s := string(bytes.TrimSpace(v))
		if strings.HasPrefix(s, `"`) {
			var err error
			if s, err = jsonString(v); err != nil {
				return err
			}
		}
		n, err := parseDecimal(s, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		b.(*array.Decimal128Builder).Append(n)
	case types.KindChar, types.KindVarChar:
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		b.(*array.StringBuilder).Append(s)
	case types.KindBinary, types.KindVarBinary:
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("bad base64 %q", s)
		}
		switch bb := b.(type) {
		case *array.BinaryBuilder:
			bb.Append(raw)
		case *array.FixedSizeBinaryBuilder:
			bb.Append(raw)
		default:
			return fmt.Errorf("unexpected builder %T", b)
		}
	case types.KindDate:
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		days, err := parseDate(s)
		if err != nil {
			return err
		}
		if days < math.MinInt32 || days > math.MaxInt32 {
			return fmt.Errorf("date %q out of range", s)
		}
		b.(*array.Date32Builder).Append(arrow.Date32(days))
	case types.KindTime:
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		ms, err := parseTime(s)
		if err != nil {
			return err
		}
		b.(*array.Time32Builder).Append(arrow.Time32(ms))
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		ts, err := parseTimestamp(s, types.TimestampUnit(t.Precision))
		if err != nil {
			return err
		}
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(ts))
	case types.KindArray:
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return fmt.Errorf("want an array, got %s", truncateJSON(v))
		}
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for _, e := range elems {
			if err := appendValue(lb.ValueBuilder(), *t.Elem, e); err != nil {
				return err
			}
		}
	case types.KindMap, types.KindMultiset:
		key, value := t.Key, t.Value
		if t.Kind == types.KindMultiset {
			count := types.Int().NotNull()
			key, value = t.Elem, &count
		}
		var pairs [][]json.RawMessage
		if err := json.Unmarshal(v, &pairs); err != nil {
			return fmt.Errorf("want an array of [key, value] pairs, got %s", truncateJSON(v))
		}
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for _, p := range pairs {
			if len(p) != 2 {
				return fmt.Errorf("map entry with %d elements, want [key, value]", len(p))
			}
			if isNullJSON(p[0]) {
				return fmt.Errorf("null map key")
			}
			if err := appendValue(mb.KeyBuilder(), *key, p[0]); err != nil {
				return err
			}
			if err := appendValue(mb.ItemBuilder(), *value, p[1]); err != nil {
				return err
			}
		}
	case types.KindRow:
		obj, err := objectOf(v)
		if err != nil {
			return fmt.Errorf("want an object: %v", err)
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		seen := make([]bool, len(t.Fields))
		for _, kv := range obj {
			i, f, ok := types.FieldByName(t.Fields, kv.key)
			if !ok {
				return fmt.Errorf("%q is not a field of %s", kv.key, t)
			}
			if seen[i] {
				return fmt.Errorf("duplicate field %q", kv.key)
			}
			seen[i] = true
			if err := appendValue(sb.FieldBuilder(i), f.Type, kv.value); err != nil {
				return fmt.Errorf("field %q: %w", kv.key, err)
			}
		}
		for i, ok := range seen {
			if !ok {
				sb.FieldBuilder(i).AppendNull()
			}
		}
	default:
		return fmt.Errorf("type %s cannot be imported from JSON", t)
	}
	return nil
}

func parseFloat(v json.RawMessage, bits int) (float64, error) {
	s := string(bytes.TrimSpace(v))
	if strings.HasPrefix(s, `"`) {
		q, err := jsonString(v)
		if err != nil {
			return 0, err
		}
		switch q {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("want a number, NaN or ±Infinity, got %q", q)
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, fmt.Errorf("want a %d-bit float, got %s", bits, truncateJSON(v))
	}
	return f, nil
}

// parseDecimal parses a plain decimal number ("-12.340", "7", "1e3" is not
// accepted) exactly into the unscaled value of DECIMAL(precision, scale).
func parseDecimal(s string, precision, scale int) (decimal128.Num, error) {
	bad := func(why string) (decimal128.Num, error) {
		return decimal128.Num{}, fmt.Errorf("decimal %q does not fit DECIMAL(%d, %d): %s", s, precision, scale, why)
	}
	body := s
	neg := false
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		neg = body[0] == '-'
		body = body[1:]
	}
	intPart, frac, _ := strings.Cut(body, ".")
	if intPart == "" && frac == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return bad("not a decimal number")
	}
	if len(frac) > scale {
		if strings.Trim(frac[scale:], "0") != "" {
			return bad("too many fractional digits")
		}
		frac = frac[:scale]
	}
	digits := strings.TrimLeft(intPart+frac+strings.Repeat("0", scale-len(frac)), "0")
	if len(digits) > precision {
		return bad("too many digits")
	}
	n, ok := new(big.Int).SetString("0"+digits, 10)
	if !ok {
		return bad("not a decimal number")
	}
	if neg {
		n.Neg(n)
	}
	return decimal128.FromBigInt(n), nil
}

// atoiFixed parses s, all ASCII digits, of exactly n characters.
func atoiFixed(s string, n int) (int64, bool) {
	if len(s) != n || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// daysFromCivil is the inverse of the proleptic Gregorian calendar of
// java.time.LocalDate: days since 1970-01-01.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := int64((153*mp+2)/5 + d - 1)
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysInMonth(y int64, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// parseDate parses "YYYY-MM-DD", "+YYYYY-MM-DD" or "-YYYY-MM-DD" to days
// since the epoch.
func parseDate(s string) (int64, error) {
	bad := fmt.Errorf("want a date YYYY-MM-DD, got %q", s)
	body, sign := s, int64(1)
	if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	cut := strings.LastIndexByte(body, '-')
	if cut < 0 {
		return 0, bad
	}
	ym, dd := body[:cut], body[cut+1:]
	cut = strings.LastIndexByte(ym, '-')
	if cut < 0 {
		return 0, bad
	}
	yy, mm := ym[:cut], ym[cut+1:]
	if len(yy) < 4 || len(yy) > 10 {
		return 0, bad
	}
	y, ok1 := atoiFixed(yy, len(yy))
	m, ok2 := atoiFixed(mm, 2)
	d, ok3 := atoiFixed(dd, 2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || int(d) > daysInMonth(sign*y, int(m)) {
		return 0, bad
	}
	return daysFromCivil(sign*y, int(m), int(d)), nil
}

// parseClock parses "HH:MM:SS[.fffffffff]" to seconds of day and nanos.
func parseClock(s string) (sec int64, nanos int64, ok bool) {
	hms, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 {
		return 0, 0, false
	}
	h, ok1 := atoiFixed(parts[0], 2)
	m, ok2 := atoiFixed(parts[1], 2)
	sc, ok3 := atoiFixed(parts[2], 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sc > 59 {
		return 0, 0, false
	}
	if hasFrac {
		if frac == "" || len(frac) > 9 {
			return 0, 0, false
		}
		f, okf := atoiFixed(frac, len(frac))
		if !okf {
			return 0, 0, false
		}
		for k := len(frac); k < 9; k++ {
			f *= 10
		}
		nanos = f
	}
	return h*3600 + m*60 + sc, nanos, true
}

func parseTime(s string) (int32, error) {
	sec, nanos, ok := parseClock(s)
	if !ok {
		return 0, fmt.Errorf("want a time HH:MM:SS[.fff], got %q", s)
	}
	if nanos%1_000_000 != 0 {
		return 0, fmt.Errorf("time %q has digits below milliseconds", s)
	}
	return int32(sec*1000 + nanos/1_000_000), nil
}

// parseTimestamp parses "DATE'T'HH:MM:SS[.f…][Z]" to a count of unit since
// the epoch.
func parseTimestamp(s string, unit arrow.TimeUnit) (int64, error) {
	body := strings.TrimSuffix(s, "Z")
	d, clock, ok := strings.Cut(body, "T")
	if !ok {
		return 0, fmt.Errorf("want a timestamp YYYY-MM-DDTHH:MM:SS[.f], got %q", s)
	}
	days, err := parseDate(d)
	if err != nil {
		return 0, err
	}
	sec, nanos, ok := parseClock(clock)
	if !ok {
		return 0, fmt.Errorf("want a timestamp YYYY-MM-DDTHH:MM:SS[.f], got %q", s)
	}
	per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1_000, arrow.Microsecond: 1_000_000, arrow.Nanosecond: 1_000_000_000}[unit]
	step := 1_000_000_000 / per
	if nanos%step != 0 {
		return 0, fmt.Errorf("timestamp %q has more fractional digits than the column holds", s)
	}
	total := new(big.Int).Mul(big.NewInt(days*86400+sec), big.NewInt(per))
	total.Add(total, big.NewInt(nanos/step))
	if !total.IsInt64() {
		return 0, fmt.Errorf("timestamp %q out of range", s)
	}
	return total.Int64(), nil
}
