package avro

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/ocf"
	"github.com/paimon-go/paimon/types"
)

// maxPlanDepth bounds the nesting of the reading plan (and so of recursive
// writer schemas).
const maxPlanDepth = 64

// Reader reads the rows of one Avro data file as Arrow batches (Java
// AvroBulkFormat / AvroRowDatumReader). The file's block headers and blocks
// are read through the format.File one block at a time. It is not safe for
// concurrent use.
type Reader struct {
	name   string
	f      format.File
	file   *ocf.File
	schema *arrow.Schema
	mem    memory.Allocator
	batch  int
	budget *ocf.Budget

	// plan: top-level union branch of the record (-1: the schema is the
	// record itself), one decoder per file field, builders per want field
	// absent from the file.
	union   int
	fields  []decoder
	missing []int
	b       *array.RecordBuilder

	d       *ocf.Decoder // current block
	left    int64        // records left in the current block
	next    int64        // file row position of the next row
	numRows int64        // -1 until counted
	done    bool
}

// decoder reads one value (of a record field, array item, ...) from d.
type decoder func(d *ocf.Decoder)

// NewReader opens the Avro data file f (named fileName in errors) for
// reading the fields want, matched to the file's top-level record fields by
// name as Java's Avro schema resolution does (Avro data files carry no field
// ids); a field absent from the file reads as nulls, file fields not wanted
// are skipped. Batches have schema types.SchemaToArrow(want).
//
// Errors name fileName: format.ErrCorrupt for a missing magic, a truncated
// or malformed header or block, a bad sync marker; format.ErrTooLarge when
// the blocks decompress beyond format.DecodeBudget(size);
// format.ErrUnsupportedFormat for a codec other than null, deflate, snappy,
// zstandard or a writer schema that is not a record; format.ErrSchemaMismatch
// for a file field whose Avro type cannot be read as the wanted type; I/O
// errors of f as they are.
func NewReader(ctx context.Context, f format.File, fileName string, want []types.DataField, opts format.ReadOptions) (r *Reader, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("%w: avro: %s: %v", format.ErrCorrupt, fileName, p)
		}
	}()
	file, err := ocf.OpenAt(f, f.Size(), nil)
	if err != nil {
		return nil, wrap(fileName, err)
	}
	r = &Reader{name: fileName, f: f, file: file, schema: types.SchemaToArrow(want), mem: opts.Allocator,
		batch: opts.BatchSize, budget: ocf.NewBudget(format.DecodeBudget(f.Size())), numRows: -1}
	file.SetBudget(r.budget)
	if r.mem == nil {
		r.mem = memory.DefaultAllocator
	}
	if r.batch <= 0 {
		r.batch = format.DefaultBatchSize
	}
	if err := r.plan(want); err != nil {
		file.Close()
		return nil, err
	}
	return r, nil
}

// wrap names the file in err and maps the container's errors to the format
// sentinels.
func wrap(name string, err error) error {
	switch {
	case errors.Is(err, ocf.ErrTooLarge):
		return fmt.Errorf("%w: avro: %s: %w", format.ErrTooLarge, name, err)
	case errors.Is(err, ocf.ErrCorrupt):
		return fmt.Errorf("%w: avro: %s: %w", format.ErrCorrupt, name, err)
	case errors.Is(err, ocf.ErrUnsupportedCodec):
		return fmt.Errorf("%w: avro: %s: %w", format.ErrUnsupportedFormat, name, err)
	}
	return fmt.Errorf("avro: %s: %w", name, err)
}

func (r *Reader) plan(want []types.DataField) error {
	s, err := ocf.ParseSchema(r.file.Schema)
	if err != nil {
		return wrap(r.name, err)
	}
	r.union = -1
	if s.Type == ocf.Union {
		rec := -1
		for i, b := range s.Branches {
			if b.Type == ocf.Record && rec < 0 {
				rec = i
			} else if b.Type != ocf.Null {
				rec = -2
			}
		}
		if rec < 0 {
			return fmt.Errorf("%w: avro: %s: writer schema is not a record", format.ErrUnsupportedFormat, r.name)
		}
		r.union, s = rec, s.Branches[rec]
	}
	if s.Type != ocf.Record {
		return fmt.Errorf("%w: avro: %s: writer schema is a %s, not a record", format.ErrUnsupportedFormat, r.name, s.Type)
	}
	r.b = array.NewRecordBuilder(r.mem, r.schema)
	found := make([]bool, len(want))
	r.fields = make([]decoder, len(s.Fields))
	for i, ff := range s.Fields {
		k := -1
		for j, w := range want {
			if w.Name == ff.Name && !found[j] {
				k = j
				break
			}
		}
		if k < 0 {
			if r.fields[i], err = skipper(ff.Type, 0); err != nil {
				r.b.Release()
				return fmt.Errorf("avro: %s: column %s: %w", r.name, ff.Name, err)
			}
			continue
		}
		found[k] = true
		if r.fields[i], err = planValue(ff.Type, want[k].Type, r.b.Field(k), 0); err != nil {
			r.b.Release()
			return fmt.Errorf("avro: %s: column %s: %w", r.name, ff.Name, err)
		}
	}
	for j := range want {
		if !found[j] {
			r.missing = append(r.missing, j)
		}
	}
	return nil
}

// NumRows returns the number of rows in the file, counted from the block
// headers on the first call (Java AvroSimpleStatsExtractor.getRowCount);
// -1 when they cannot be read.
func (r *Reader) NumRows() int64 {
	if r.numRows >= 0 {
		return r.numRows
	}
	f, err := ocf.OpenAt(r.f, r.f.Size(), nil)
	if err != nil {
		return -1
	}
	defer f.Close()
	n, err := f.RecordCountAt()
	if err != nil {
		return -1
	}
	r.numRows = n
	return n
}

// Next returns the next batch (the caller releases its Record), or io.EOF
// after the last one. After an error every call returns io.EOF.
func (r *Reader) Next(ctx context.Context) (b format.Batch, err error) {
	if r.done {
		return format.Batch{}, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return format.Batch{}, err
	}
	defer func() {
		if p := recover(); p != nil {
			r.Close()
			b, err = format.Batch{}, fmt.Errorf("%w: avro: %s: %v", format.ErrCorrupt, r.name, p)
		}
	}()
	first := r.next
	n := 0
	for n < r.batch {
		if r.left == 0 {
			if r.d != nil && r.d.Remaining() != 0 {
				err := fmt.Errorf("%w: avro: %s: %d bytes after the last record of a block", format.ErrCorrupt, r.name, r.d.Remaining())
				r.Close()
				return format.Batch{}, err
			}
			count, block, err := r.file.Next()
			if errors.Is(err, io.EOF) {
				r.numRows = r.next
				break
			}
			if err != nil {
				r.Close()
				return format.Batch{}, wrap(r.name, err)
			}
			if err := ctx.Err(); err != nil {
				return format.Batch{}, err
			}
			r.d = ocf.NewDecoder(block)
			r.d.SetBudget(r.budget)
			// Records of a schema that takes no bytes (no fields) are bounded by the budget
			// instead of the block size.
			if !r.d.Charge(count * int64(1+8*len(r.missing))) {
				err := wrap(r.name, r.d.Err())
				r.Close()
				return format.Batch{}, err
			}
			r.left = count
			continue
		}
		take := min(int64(r.batch-n), r.left)
		for range take {
			r.row()
		}
		if err := r.d.Err(); err != nil {
			r.Close()
			return format.Batch{}, wrap(r.name, err)
		}
		r.left -= take
		n += int(take)
		r.next += take
	}
	if n == 0 {
		r.Close()
		return format.Batch{}, io.EOF
	}
	return format.Batch{Record: r.b.NewRecordBatch(), FirstRow: first}, nil
}

// row decodes one record.
func (r *Reader) row() {
	d := r.d
	if r.union >= 0 {
		if br := d.Long(); br != int64(r.union) {
			d.Failf("top-level union branch %d, want %d", br, r.union)
			return
		}
	}
	for _, dec := range r.fields {
		dec(d)
	}
	for _, j := range r.missing {
		r.b.Field(j).AppendNull()
	}
}

// Close releases the reader's resources; it does not close the format.File.
func (r *Reader) Close() error {
	if !r.done {
		r.done = true
		r.file.Close()
		r.b.Release()
		r.d = nil
	}
	return nil
}

func schemaMismatch(s *ocf.Schema, t types.DataType) error {
	lt := ""
	if s.Logical != "" {
		lt = " (" + s.Logical + ")"
	}
	return fmt.Errorf("%w: Avro %s%s cannot be read as %s", format.ErrSchemaMismatch, s.Type, lt, t)
}

// planValue returns the decoder of a value of file schema s read as t into
// b (an Arrow builder of types.ToArrow(t)).
func planValue(s *ocf.Schema, t types.DataType, b array.Builder, depth int) (decoder, error) {
	if depth > maxPlanDepth {
		return nil, fmt.Errorf("%w: types nested deeper than %d levels", format.ErrUnsupportedFormat, maxPlanDepth)
	}
	switch s.Type {
	case ocf.Null:
		return func(*ocf.Decoder) { b.AppendNull() }, nil
	case ocf.Union:
		nulls, val := -1, -1
		for i, br := range s.Branches {
			if br.Type == ocf.Null {
				nulls = i
			} else if val < 0 {
				val = i
			} else {
				return nil, fmt.Errorf("%w: union of %d types", format.ErrUnsupportedFormat, len(s.Branches))
			}
		}
		if val < 0 {
			return func(d *ocf.Decoder) { d.Long(); b.AppendNull() }, nil
		}
		inner, err := planValue(s.Branches[val], t, b, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder) {
			switch br := d.Long(); br {
			case int64(val):
				inner(d)
			case int64(nulls):
				b.AppendNull()
			default:
				d.Failf("union branch %d out of range", br)
				b.AppendNull()
			}
		}, nil
	}
	switch t.Kind {
	case types.KindBoolean:
		if bb, ok := b.(*array.BooleanBuilder); ok && s.Type == ocf.Boolean {
			return func(d *ocf.Decoder) { bb.Append(d.Boolean()) }, nil
		}
	case types.KindTinyInt:
		if bb, ok := b.(*array.Int8Builder); ok && s.Type == ocf.Int {
			return func(d *ocf.Decoder) { bb.Append(int8(d.Int())) }, nil
		}
	case types.KindSmallInt:
		if bb, ok := b.(*array.Int16Builder); ok && s.Type == ocf.Int {
			return func(d *ocf.Decoder) { bb.Append(int16(d.Int())) }, nil
		}
	case types.KindInt:
		if bb, ok := b.(*array.Int32Builder); ok && s.Type == ocf.Int {
			return func(d *ocf.Decoder) { bb.Append(d.Int()) }, nil
		}
	case types.KindBigInt:
		if bb, ok := b.(*array.Int64Builder); ok && (s.Type == ocf.Int || s.Type == ocf.Long) {
			return func(d *ocf.Decoder) { bb.Append(d.Long()) }, nil
		}
	case types.KindFloat:
		if bb, ok := b.(*array.Float32Builder); ok && s.Type == ocf.Float {
			return func(d *ocf.Decoder) { bb.Append(d.Float()) }, nil
		}
	case types.KindDouble:
		if bb, ok := b.(*array.Float64Builder); ok {
			switch s.Type {
			case ocf.Double:
				return func(d *ocf.Decoder) { bb.Append(d.Double()) }, nil
			case ocf.Float:
				return func(d *ocf.Decoder) { bb.Append(float64(d.Float())) }, nil
			}
		}
	case types.KindDate:
		if bb, ok := b.(*array.Date32Builder); ok && s.Type == ocf.Int {
			return func(d *ocf.Decoder) { bb.Append(arrow.Date32(d.Int())) }, nil
		}
	case types.KindTime:
		if bb, ok := b.(*array.Time32Builder); ok && s.Type == ocf.Int {
			return func(d *ocf.Decoder) { bb.Append(arrow.Time32(d.Int())) }, nil
		}
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		bb, ok := b.(*array.TimestampBuilder)
		if !ok || s.Type != ocf.Long {
			break
		}
		var perMilli int64 = 1 // file units per millisecond
		switch s.Logical {
		case "timestamp-micros", "local-timestamp-micros":
			perMilli = 1000
		case "timestamp-nanos", "local-timestamp-nanos":
			perMilli = 1000000
		}
		var want int64 = 1
		switch types.TimestampUnit(t.Precision) {
		case arrow.Microsecond:
			want = 1000
		case arrow.Nanosecond:
			want = 1000000
		}
		switch {
		case want == perMilli:
			return func(d *ocf.Decoder) { bb.Append(arrow.Timestamp(d.Long())) }, nil
		case want > perMilli:
			f := want / perMilli
			return func(d *ocf.Decoder) {
				v := d.Long()
				if v > math.MaxInt64/f || v < math.MinInt64/f {
					d.Fail(fmt.Errorf("%w: timestamp %d out of range of %s", format.ErrOutOfRange, v, t))
				}
				bb.Append(arrow.Timestamp(v * f))
			}, nil
		default:
			f := perMilli / want
			return func(d *ocf.Decoder) {
				v := d.Long()
				q := v / f
				if v%f < 0 {
					q--
				}
				bb.Append(arrow.Timestamp(q))
			}, nil
		}
	case types.KindChar, types.KindVarChar:
		if bb, ok := b.(*array.StringBuilder); ok && (s.Type == ocf.String || s.Type == ocf.Bytes) {
			return func(d *ocf.Decoder) { bb.BinaryBuilder.Append(d.View()) }, nil
		}
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		bb, ok := b.(*array.BinaryBuilder)
		if !ok {
			break
		}
		switch s.Type {
		case ocf.Bytes, ocf.String:
			return func(d *ocf.Decoder) { bb.Append(d.View()) }, nil
		case ocf.Fixed:
			n := s.Size
			return func(d *ocf.Decoder) { bb.Append(d.FixedView(n)) }, nil
		}
	case types.KindDecimal:
		bb, ok := b.(*array.Decimal128Builder)
		if !ok || (s.Type != ocf.Bytes && s.Type != ocf.Fixed) || s.Logical != "decimal" {
			break
		}
		read := func(d *ocf.Decoder) []byte { return d.View() }
		if s.Type == ocf.Fixed {
			n := s.Size
			read = func(d *ocf.Decoder) []byte { return d.FixedView(n) }
		}
		shift := t.Scale - s.Scale
		if shift < 0 {
			break // narrowing the scale rounds: a cast, not a read
		}
		mul := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil)
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
		return func(d *ocf.Decoder) {
			raw := read(d)
			if d.Err() != nil {
				bb.AppendNull()
				return
			}
			if shift == 0 && len(raw) <= 8 && len(raw) > 0 {
				v := int64(int8(raw[0]))
				for _, c := range raw[1:] {
					v = v<<8 | int64(c)
				}
				bb.Append(decimal128.FromI64(v))
				return
			}
			u := twos(raw)
			u.Mul(u, mul)
			if new(big.Int).Abs(u).Cmp(limit) >= 0 {
				d.Fail(fmt.Errorf("%w: decimal %s does not fit %s", format.ErrOutOfRange, u, t))
				bb.AppendNull()
				return
			}
			bb.Append(decimal128.FromBigInt(u))
		}, nil
	case types.KindArray:
		lb, ok := b.(*array.ListBuilder)
		if !ok || s.Type != ocf.Array {
			break
		}
		item, err := planValue(s.Items, *t.Elem, lb.ValueBuilder(), depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder) {
			lb.Append(true)
			for n := d.BlockCount(minSize(s.Items)); n > 0 && d.Charge(int64(n)); n = d.BlockCount(minSize(s.Items)) {
				for range n {
					item(d)
				}
			}
		}, nil
	case types.KindMap, types.KindMultiset:
		mb, ok := b.(*array.MapBuilder)
		if !ok {
			break
		}
		key, val := mapParts(t)
		switch {
		case s.Type == ocf.Map:
			kb, ok := mb.KeyBuilder().(*array.StringBuilder)
			if !ok {
				break
			}
			vd, err := planValue(s.Values, val, mb.ItemBuilder(), depth+1)
			if err != nil {
				return nil, err
			}
			return func(d *ocf.Decoder) {
				mb.Append(true)
				for n := d.BlockCount(1); n > 0 && d.Charge(int64(n)); n = d.BlockCount(1) {
					for range n {
						kb.BinaryBuilder.Append(d.View())
						vd(d)
					}
				}
			}, nil
		case s.Type == ocf.Array && s.Items.Type == ocf.Record:
			rec := s.Items
			decs := make([]decoder, len(rec.Fields))
			var seen [2]bool
			for i, f := range rec.Fields {
				var err error
				switch f.Name {
				case "key":
					decs[i], err = planValue(f.Type, key, mb.KeyBuilder(), depth+1)
					seen[0] = true
				case "value":
					decs[i], err = planValue(f.Type, val, mb.ItemBuilder(), depth+1)
					seen[1] = true
				default:
					decs[i], err = skipper(f.Type, depth+1)
				}
				if err != nil {
					return nil, err
				}
			}
			if !seen[0] || !seen[1] {
				break
			}
			return func(d *ocf.Decoder) {
				mb.Append(true)
				for n := d.BlockCount(minSize(rec)); n > 0 && d.Charge(int64(n)); n = d.BlockCount(minSize(rec)) {
					for range n {
						for _, dec := range decs {
							dec(d)
						}
					}
				}
			}, nil
		}
	case types.KindRow:
		sb, ok := b.(*array.StructBuilder)
		if !ok || s.Type != ocf.Record {
			break
		}
		decs := make([]decoder, len(s.Fields))
		found := make([]bool, len(t.Fields))
		for i, f := range s.Fields {
			k := -1
			for j, w := range t.Fields {
				if w.Name == f.Name && !found[j] {
					k = j
					break
				}
			}
			var err error
			if k < 0 {
				decs[i], err = skipper(f.Type, depth+1)
			} else {
				found[k] = true
				decs[i], err = planValue(f.Type, t.Fields[k].Type, sb.FieldBuilder(k), depth+1)
			}
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		var missing []array.Builder
		for j := range t.Fields {
			if !found[j] {
				missing = append(missing, sb.FieldBuilder(j))
			}
		}
		return func(d *ocf.Decoder) {
			if !d.Enter() {
				sb.AppendNull()
				return
			}
			sb.Append(true)
			for _, dec := range decs {
				dec(d)
			}
			for _, m := range missing {
				m.AppendNull()
			}
			d.Leave()
		}, nil
	}
	return nil, schemaMismatch(s, t)
}

// twos returns the integer of a big-endian two's complement byte string.
func twos(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// minSize returns the fewest bytes a value of s occupies (bounds the item
// counts of arrays and maps against the bytes left).
func minSize(s *ocf.Schema) int {
	switch s.Type {
	case ocf.Null:
		return 0
	case ocf.Record:
		for _, f := range s.Fields {
			if minSize(f.Type) > 0 {
				return 1
			}
		}
		return 0
	case ocf.Fixed:
		return min(s.Size, 1)
	}
	return 1
}

// skipper returns a decoder that reads and discards a value of s.
func skipper(s *ocf.Schema, depth int) (decoder, error) {
	if depth > maxPlanDepth {
		return nil, fmt.Errorf("%w: types nested deeper than %d levels", format.ErrUnsupportedFormat, maxPlanDepth)
	}
	switch s.Type {
	case ocf.Null:
		return func(*ocf.Decoder) {}, nil
	case ocf.Boolean:
		return func(d *ocf.Decoder) { d.Skip(1) }, nil
	case ocf.Int, ocf.Long, ocf.Enum:
		return func(d *ocf.Decoder) { d.Long() }, nil
	case ocf.Float:
		return func(d *ocf.Decoder) { d.Skip(4) }, nil
	case ocf.Double:
		return func(d *ocf.Decoder) { d.Skip(8) }, nil
	case ocf.Bytes, ocf.String:
		return func(d *ocf.Decoder) { d.View() }, nil
	case ocf.Fixed:
		n := s.Size
		return func(d *ocf.Decoder) { d.Skip(n) }, nil
	case ocf.Array, ocf.Map:
		item := s.Items
		if s.Type == ocf.Map {
			item = s.Values
		}
		sk, err := skipper(item, depth+1)
		if err != nil {
			return nil, err
		}
		isMap := s.Type == ocf.Map
		ms := minSize(item)
		if isMap {
			ms = 1
		}
		return func(d *ocf.Decoder) {
			for n := d.BlockCount(ms); n > 0 && d.Charge(int64(n)); n = d.BlockCount(ms) {
				for range n {
					if isMap {
						d.View()
					}
					sk(d)
				}
			}
		}, nil
	case ocf.Record:
		sks := make([]decoder, len(s.Fields))
		for i, f := range s.Fields {
			var err error
			if sks[i], err = skipper(f.Type, depth+1); err != nil {
				return nil, err
			}
		}
		return func(d *ocf.Decoder) {
			for _, sk := range sks {
				sk(d)
			}
		}, nil
	case ocf.Union:
		sks := make([]decoder, len(s.Branches))
		for i, b := range s.Branches {
			var err error
			if sks[i], err = skipper(b, depth+1); err != nil {
				return nil, err
			}
		}
		return func(d *ocf.Decoder) {
			br := d.Long()
			if br < 0 || br >= int64(len(sks)) {
				d.Failf("union branch %d out of range", br)
				return
			}
			sks[br](d)
		}, nil
	}
	return nil, fmt.Errorf("%w: Avro type %s", format.ErrUnsupportedFormat, s.Type)
}
