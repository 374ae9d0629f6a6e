package orc

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchRows is the number of rows per record when ReadOptions.BatchRows
// is not positive.
const DefaultBatchRows = 8192

// ReadOptions selects what Records decodes.
type ReadOptions struct {
	// Columns lists top-level column indexes (positions in Schema()) in the
	// order the records should have them; nil reads every column. An index
	// may not repeat.
	Columns []int
	// BatchRows bounds the rows of one record; <= 0 means DefaultBatchRows.
	// Records never span stripes, so a record may be shorter.
	BatchRows int
	// Schema, when non-nil, is the Arrow schema of the produced records: one
	// field per selected column, in order. Field names, nullability and
	// metadata are taken from it; each type must be the column's default
	// type (see Schema) or one of these conversions, recursively through
	// lists, maps and structs (struct fields by position): a wider integer
	// (tinyint/smallint/int to Int16/Int32/Int64), float to Float64,
	// timestamp to Timestamp of any unit and zone (sub-unit digits are
	// floored away), int to Time32(ms) (Paimon TIME), string/char/varchar to
	// Binary, binary to String, decimal to Decimal128 of another precision
	// and scale (rounded HALF_UP; values beyond the precision become null).
	// Other types are format.ErrSchemaMismatch.
	Schema *arrow.Schema
	// Allocator for the Arrow arrays; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
}

// Records returns the rows of the file as Arrow records of at most
// batchRows rows, with the top-level columns selected by index (nil = all).
// It is RecordsWith with only those two options; see there.
func (f *File) Records(ctx context.Context, columns []int, batchRows int) iter.Seq2[arrow.RecordBatch, error] {
	return f.RecordsWith(ctx, ReadOptions{Columns: columns, BatchRows: batchRows})
}

// RecordsWith decodes the file stripe by stripe and yields records. The
// caller owns each record and should Release it. Iteration stops at the
// first error, which is yielded with a nil record: ErrCorrupt for malformed
// stripes or streams, ErrUnsupportedFormat for unsupported encodings,
// format.ErrSchemaMismatch for an opts.Schema the columns cannot be read as
// (or a bad column index), format.ErrOutOfRange for timestamps the
// requested unit cannot hold, the context's error when ctx is done, and I/O
// errors of the underlying reader (wrapped).
func (f *File) RecordsWith(ctx context.Context, opts ReadOptions) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := f.readRecords(ctx, opts, yield); err != nil {
			yield(nil, err)
		}
	}
}

// Read decodes the selected rows into a slice of records (see RecordsWith).
// The caller owns the records; on error every record read so far is
// released and nil is returned.
func (f *File) Read(ctx context.Context, opts ReadOptions) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for rec, err := range f.RecordsWith(ctx, opts) {
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// colPlan pairs a file column with the Arrow type it is decoded into.
type colPlan struct {
	n        *node // nil: the column is absent from the file and reads as nulls
	at       arrow.DataType
	children []*colPlan // struct: one per Arrow field; list: element; map: key, value
}

// plan validates opts and returns the plans of the selected columns and
// the output schema.
func (f *File) plan(opts ReadOptions) ([]*colPlan, *arrow.Schema, error) {
	cols := opts.Columns
	if cols == nil {
		cols = make([]int, len(f.root.children))
		for i := range cols {
			cols[i] = i
		}
	}
	seen := make(map[int]bool, len(cols))
	nodes := make([]*node, len(cols))
	for i, c := range cols {
		if c < 0 || c >= len(f.root.children) {
			return nil, nil, mismatchf("column index %d out of range [0, %d)", c, len(f.root.children))
		}
		if seen[c] {
			return nil, nil, mismatchf("column index %d selected twice", c)
		}
		seen[c] = true
		nodes[i] = f.root.children[c]
	}
	schema := opts.Schema
	if schema == nil {
		fs := make([]arrow.Field, len(cols))
		for i, c := range cols {
			fs[i] = f.schema.Field(c)
		}
		schema = arrow.NewSchema(fs, nil)
	} else if schema.NumFields() != len(nodes) {
		return nil, nil, mismatchf("requested schema has %d fields for %d selected columns", schema.NumFields(), len(nodes))
	}
	plans := make([]*colPlan, len(nodes))
	for i, n := range nodes {
		var err error
		if plans[i], err = planByPosition(n, schema.Field(i).Type); err != nil {
			return nil, nil, err
		}
	}
	return plans, schema, nil
}

// planByPosition plans reading column n as at, matching struct fields by
// position.
func planByPosition(n *node, at arrow.DataType) (*colPlan, error) {
	p := &colPlan{n: n, at: at}
	var childTypes []arrow.DataType
	switch n.t.kind {
	case kindList:
		if lt, ok := at.(*arrow.ListType); ok {
			childTypes = []arrow.DataType{lt.Elem()}
		}
	case kindMap:
		if mt, ok := at.(*arrow.MapType); ok {
			childTypes = []arrow.DataType{mt.KeyType(), mt.ItemType()}
		}
	case kindStruct:
		if st, ok := at.(*arrow.StructType); ok && st.NumFields() == len(n.children) {
			for _, fd := range st.Fields() {
				childTypes = append(childTypes, fd.Type)
			}
		}
	default:
		return p, checkLeaf(n, at)
	}
	if len(childTypes) != len(n.children) {
		return nil, cannotRead(n, at)
	}
	for i, ch := range n.children {
		cp, err := planByPosition(ch, childTypes[i])
		if err != nil {
			return nil, err
		}
		p.children = append(p.children, cp)
	}
	return p, nil
}

func cannotRead(n *node, at arrow.DataType) error {
	return mismatchf("column %d (%q, ORC %s) cannot be read as Arrow %s", n.id, n.name, kindName(n.t.kind), at)
}

// checkLeaf reports whether the primitive column n can be decoded into at:
// its default type, a wider integer or float type, or one of the
// conversions listed at ReadOptions.Schema.
func checkLeaf(n *node, at arrow.DataType) error {
	id := at.ID()
	ok := false
	switch n.t.kind {
	case kindBoolean:
		ok = id == arrow.BOOL
	case kindByte:
		ok = id == arrow.INT8 || id == arrow.INT16 || id == arrow.INT32 || id == arrow.INT64
	case kindShort:
		ok = id == arrow.INT16 || id == arrow.INT32 || id == arrow.INT64
	case kindInt:
		ok = id == arrow.INT32 || id == arrow.INT64 || id == arrow.TIME32 && at.(*arrow.Time32Type).Unit == arrow.Millisecond
	case kindLong:
		ok = id == arrow.INT64
	case kindFloat:
		ok = id == arrow.FLOAT32 || id == arrow.FLOAT64
	case kindDouble:
		ok = id == arrow.FLOAT64
	case kindString, kindVarchar, kindChar, kindBinary:
		ok = id == arrow.STRING || id == arrow.BINARY
	case kindDecimal:
		ok = id == arrow.DECIMAL128
	case kindDate:
		ok = id == arrow.DATE32
	case kindTimestamp, kindTimestampInstant:
		ok = id == arrow.TIMESTAMP
	}
	if !ok {
		return cannotRead(n, at)
	}
	return nil
}

func (f *File) readRecords(ctx context.Context, opts ReadOptions, yield func(arrow.RecordBatch, error) bool) error {
	plans, schema, err := f.plan(opts)
	if err != nil {
		return err
	}
	return f.scan(ctx, plans, schema, opts.Allocator, opts.BatchRows, nil,
		func(rec arrow.RecordBatch, _ int64) bool { return yield(rec, nil) })
}

// scan decodes the planned columns stripe by stripe in records of at most
// batch rows. skip, when non-nil, is asked per stripe (index, first row,
// row count) whether to skip it; yield receives each record with the file
// position of its first row and returns false to stop.
func (f *File) scan(ctx context.Context, plans []*colPlan, schema *arrow.Schema, mem memory.Allocator, batch int,
	skip func(stripe int, first, rows int64) bool, yield func(rec arrow.RecordBatch, firstRow int64) bool) error {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batch <= 0 {
		batch = DefaultBatchRows
	}
	need := make([]bool, len(f.ft.types))
	var mark func(p *colPlan)
	mark = func(p *colPlan) {
		if p.n == nil {
			return
		}
		need[p.n.id] = true
		for _, ch := range p.children {
			mark(ch)
		}
	}
	for _, p := range plans {
		mark(p)
	}
	first := int64(0)
	for si := range f.ft.stripes {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows := int64(f.ft.stripes[si].numberOfRows)
		stripeFirst := first
		first += rows
		if rows == 0 || skip != nil && skip(si, stripeFirst, rows) {
			continue
		}
		sd, err := f.loadStripe(si, need)
		if err != nil {
			return err
		}
		if len(plans) > 0 && rows > sd.budget {
			return corruptf("stripe %d: %d rows is implausible for %d bytes of column data", si, rows, (sd.budget-1<<20)/1024)
		}
		readers := make([]colReader, len(plans))
		for i, p := range plans {
			if readers[i], err = sd.reader(p); err != nil {
				return err
			}
		}
		for done := int64(0); done < rows; {
			if err := ctx.Err(); err != nil {
				return err
			}
			m := min(int64(batch), rows-done)
			rec, err := readBatch(mem, schema, readers, int(m))
			if err != nil {
				return err
			}
			if !yield(rec, stripeFirst+done) {
				return nil
			}
			done += m
		}
	}
	return nil
}

func readBatch(mem memory.Allocator, schema *arrow.Schema, readers []colReader, n int) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, 0, len(readers))
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	for i, r := range readers {
		b := array.NewBuilder(mem, schema.Field(i).Type)
		err := r.next(b, n, nil)
		if err == nil {
			arrs = append(arrs, b.NewArray())
		}
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(schema, arrs, int64(n)), nil
}

type streamKey struct {
	column uint64
	kind   uint64
}

// stripeData holds the decompressed data streams of the selected columns of
// one stripe.
type stripeData struct {
	index    int
	streams  map[streamKey][]byte
	enc      []columnEncoding
	timezone string
	budget   int64
}

func isDataStream(kind uint64) bool {
	switch kind {
	case streamPresent, streamData, streamLength, streamDictionaryData, streamSecondary:
		return true
	}
	return false
}

func (f *File) loadStripe(si int, need []bool) (*stripeData, error) {
	s := f.ft.stripes[si]
	what := fmt.Sprintf("stripe %d", si)
	footerAt := s.offset + s.indexLength + s.dataLength
	raw := make([]byte, s.footerLength)
	if err := readFull(f.r, raw, int64(footerAt), what+" footer"); err != nil {
		return nil, err
	}
	fb, err := f.codec.decompress(raw, what+" footer")
	if err != nil {
		return nil, err
	}
	sf, err := parseStripeFooter(fb, what+" footer")
	if err != nil {
		return nil, err
	}
	sd := &stripeData{index: si, streams: map[streamKey][]byte{}, enc: sf.columns, timezone: sf.writerTimezone}
	pos := s.offset
	var total int64
	for _, st := range sf.streams {
		if st.length > footerAt-pos {
			return nil, corruptf("%s: stream %s of column %d (%d bytes at %d) overruns the stripe data", what, streamName(st.kind), st.column, st.length, pos)
		}
		at := pos
		pos += st.length
		if st.column >= uint64(len(need)) || !need[st.column] || !isDataStream(st.kind) {
			continue
		}
		key := streamKey{st.column, st.kind}
		if _, dup := sd.streams[key]; dup {
			return nil, corruptf("%s: duplicate %s stream for column %d", what, streamName(st.kind), st.column)
		}
		buf := make([]byte, st.length)
		if err := readFull(f.r, buf, int64(at), what); err != nil {
			return nil, err
		}
		sw := fmt.Sprintf("%s column %d %s stream", what, st.column, streamName(st.kind))
		if buf, err = f.codec.decompress(buf, sw); err != nil {
			return nil, err
		}
		sd.streams[key] = buf
		total += int64(len(buf))
	}
	sd.budget = 1024*total + 1<<20
	return sd, nil
}

// reader builds the column reader of a planned column for this stripe.
func (sd *stripeData) reader(pl *colPlan) (colReader, error) {
	if pl.n == nil {
		return nullColumn{}, nil
	}
	n := pl.n
	what := fmt.Sprintf("stripe %d column %d (%q, %s)", sd.index, n.id, n.name, kindName(n.t.kind))
	if n.id >= len(sd.enc) {
		return nil, corruptf("%s: stripe footer has no column encoding", what)
	}
	enc := sd.enc[n.id]
	stream := func(kind uint64) []byte { return sd.streams[streamKey{uint64(n.id), kind}] }
	streamWhat := func(kind uint64) string { return what + " " + streamName(kind) }
	p := presence{what: what}
	if b := stream(streamPresent); b != nil {
		p.present = newBoolRLE(b, streamWhat(streamPresent))
	}
	v2 := false
	switch enc.kind {
	case encodingDirect:
	case encodingDirectV2:
		v2 = true
	case encodingDictionary, encodingDictionaryV2:
		switch n.t.kind {
		case kindString, kindVarchar, kindChar:
		default:
			return nil, unsupportedf("%s: dictionary encoding", what)
		}
		v2 = enc.kind == encodingDictionaryV2
	case encodingDecimal64:
		if n.t.kind != kindDecimal {
			return nil, unsupportedf("%s: DECIMAL_64 encoding", what)
		}
		v2 = true
	default:
		return nil, unsupportedf("%s: column encoding %d", what, enc.kind)
	}
	ints := func(kind uint64, signed bool) intDecoder {
		return newIntDecoder(stream(kind), signed, v2, streamWhat(kind))
	}
	switch n.t.kind {
	case kindBoolean:
		return &boolColumn{presence: p, data: newBoolRLE(stream(streamData), streamWhat(streamData))}, nil
	case kindByte:
		return &byteColumn{presence: p, data: &byteRLE{buf: stream(streamData), what: streamWhat(streamData)}}, nil
	case kindShort, kindInt, kindLong, kindDate:
		return &intColumn{presence: p, data: ints(streamData, true)}, nil
	case kindFloat:
		return &floatColumn{presence: p, data: stream(streamData), width: 4}, nil
	case kindDouble:
		return &floatColumn{presence: p, data: stream(streamData), width: 8}, nil
	case kindString, kindVarchar, kindChar, kindBinary:
		c := &bytesColumn{presence: p, trimRight: n.t.kind == kindChar}
		if n.t.kind == kindChar || n.t.kind == kindVarchar {
			c.maxChars = int(min(n.t.maxLength, 1<<30))
		}
		if enc.kind == encodingDictionary || enc.kind == encodingDictionaryV2 {
			dict, err := dictionary(stream(streamDictionaryData), ints(streamLength, false), enc.dictionarySize, len(stream(streamLength)), what)
			if err != nil {
				return nil, err
			}
			c.dict, c.indexes = dict, ints(streamData, false)
		} else {
			c.data, c.lengths = stream(streamData), ints(streamLength, false)
		}
		return c, nil
	case kindTimestamp, kindTimestampInstant:
		c := &timestampColumn{presence: p, seconds: ints(streamData, true), nanos: ints(streamSecondary, false), base: orcEpoch}
		if n.t.kind == kindTimestamp {
			loc, err := writerLocation(sd.timezone)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			if loc != nil {
				c.loc = loc
				c.base = time.Date(2015, 1, 1, 0, 0, 0, 0, loc).Unix()
			}
		}
		return c, nil
	case kindDecimal:
		_, scale, err := decimalShape(n.t)
		if err != nil {
			return nil, err
		}
		c := &decimalColumn{presence: p, fileScale: scale}
		if enc.kind == encodingDecimal64 {
			c.dec64 = ints(streamData, true)
		} else {
			c.data, c.scales = stream(streamData), ints(streamSecondary, true)
		}
		return c, nil
	case kindStruct:
		c := &structColumn{presence: p}
		for _, ch := range pl.children {
			r, err := sd.reader(ch)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, r)
		}
		return c, nil
	case kindList, kindMap:
		c := &listColumn{presence: p, lengths: ints(streamLength, false), budget: sd.budget}
		for _, ch := range pl.children {
			r, err := sd.reader(ch)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, r)
		}
		return c, nil
	}
	return nil, unsupportedf("%s: type kind", what)
}

// dictionary splits DICTIONARY_DATA into size entries using the LENGTH
// stream.
func dictionary(data []byte, lengths intDecoder, size uint64, lengthBytes int, what string) ([][]byte, error) {
	// integer RLE expands at most ~128 values per byte; a larger size is
	// corrupt and must not drive the allocation.
	if size > 256*uint64(lengthBytes)+512 {
		return nil, corruptf("%s: dictionary size %d is implausible for a %d-byte LENGTH stream", what, size, lengthBytes)
	}
	lens := make([]int64, size)
	if err := lengths.next(lens); err != nil {
		return nil, err
	}
	dict := make([][]byte, size)
	pos := 0
	for i, l := range lens {
		if l < 0 || l > int64(len(data)-pos) {
			return nil, corruptf("%s: dictionary entry %d of length %d overruns DICTIONARY_DATA", what, i, l)
		}
		dict[i] = data[pos : pos+int(l)]
		pos += int(l)
	}
	return dict, nil
}

// writerLocation resolves StripeFooter.writerTimezone. UTC-equivalent and
// absent zones return nil (no conversion).
func writerLocation(name string) (*time.Location, error) {
	switch strings.ToUpper(name) {
	case "", "UTC", "GMT", "Z", "ETC/UTC", "ETC/GMT", "UCT", "ZULU", "UNIVERSAL", "GMT0", "ETC/GMT0":
		return nil, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, unsupportedf("writer time zone %q: %v", name, err)
	}
	return loc, nil
}
