package orc

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// FieldIDAttribute is the ORC type attribute in which Java Paimon stores the
// Paimon field id of every column (OrcTypeUtil.PAIMON_ORC_FIELD_ID_KEY).
const FieldIDAttribute = "paimon.id"

// maxTailRead is how many bytes Open reads from the end of the file in its
// first read, hoping to get postscript, footer and metadata at once.
const maxTailRead = 16 << 10

// maxDepth bounds the nesting of the type tree.
const maxDepth = 128

// File is an opened ORC file: its parsed tail (postscript and footer) and
// the Arrow schema derived from the footer's type tree. A File is read-only
// and safe for concurrent use; each Records iteration has its own state.
type File struct {
	r      io.ReaderAt
	size   int64
	ps     *postScript
	ft     *footer
	codec  *codec
	root   *node
	schema *arrow.Schema
}

// node is one column of the ORC type tree (column id = index in the
// footer's type list, assigned in pre-order).
type node struct {
	id       int
	t        *orcType
	name     string // field name inside the parent struct
	children []*node
}

// Open reads and validates the tail of the ORC file r of size bytes (ORC v1
// specification, "File Tail"): the postscript, the footer with the stripe
// list and the type tree. Stripe data is read lazily by Records.
//
// Errors wrap ErrCorrupt for malformed or truncated input, ErrUnsupportedFormat
// for LZO compression, column encryption, UNION columns and a root type that
// is not a struct, and the reader's error for I/O failures.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 4 {
		return nil, corruptf("file of %d bytes is too short for an ORC tail", size)
	}
	tailLen := min(size, maxTailRead)
	tail := make([]byte, tailLen)
	if err := readFull(r, tail, size-tailLen, "tail"); err != nil {
		return nil, err
	}
	psLen := int64(tail[len(tail)-1])
	if psLen+1 > tailLen {
		return nil, corruptf("postscript length %d exceeds the file size %d", psLen, size)
	}
	ps, err := parsePostScript(tail[tailLen-1-psLen : tailLen-1])
	if err != nil {
		return nil, err
	}
	if ps.magic != "ORC" {
		var head [3]byte
		if err := readFull(r, head[:], 0, "header"); err != nil {
			return nil, err
		}
		if string(head[:]) != "ORC" {
			return nil, corruptf("no ORC magic in postscript or header")
		}
	}
	c, err := newCodec(ps.compression, ps.blockSize, format.DecodeBudget(size))
	if err != nil {
		return nil, err
	}
	footerEnd := size - 1 - psLen
	if ps.footerLength > uint64(footerEnd) || ps.metadataLength > uint64(footerEnd)-ps.footerLength {
		return nil, corruptf("postscript: footer length %d and metadata length %d exceed the file size %d",
			ps.footerLength, ps.metadataLength, size)
	}
	footerStart := footerEnd - int64(ps.footerLength)
	var raw []byte
	if off := footerStart - (size - tailLen); off >= 0 {
		raw = tail[off : off+int64(ps.footerLength)]
	} else {
		raw = make([]byte, ps.footerLength)
		if err := readFull(r, raw, footerStart, "footer"); err != nil {
			return nil, err
		}
	}
	fb, err := c.decompress(raw, "footer")
	if err != nil {
		return nil, err
	}
	ft, err := parseFooter(fb)
	if err != nil {
		return nil, err
	}
	if ft.encrypted {
		return nil, unsupportedf("column encryption")
	}
	f := &File{r: r, size: size, ps: ps, ft: ft, codec: c}
	if err := f.checkStripes(footerStart - int64(ps.metadataLength)); err != nil {
		return nil, err
	}
	if f.root, err = buildTree(ft.types); err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(f.root.children))
	for i, ch := range f.root.children {
		if fields[i], err = defaultField(ch); err != nil {
			return nil, err
		}
	}
	f.schema = arrow.NewSchema(fields, nil)
	return f, nil
}

// checkStripes validates that every stripe lies inside [3, end) and that the
// stripe row counts add up to the footer's row count.
func (f *File) checkStripes(end int64) error {
	if f.ft.numberOfRows > 1<<62 {
		return corruptf("footer: row count %d out of range", f.ft.numberOfRows)
	}
	var rows uint64
	for i, s := range f.ft.stripes {
		parts := []uint64{s.offset, s.indexLength, s.dataLength, s.footerLength}
		var sum uint64
		for _, p := range parts {
			if p > uint64(end) || sum > uint64(end)-p {
				return corruptf("stripe %d: offset %d + lengths %d/%d/%d exceed the data section (%d bytes)",
					i, s.offset, s.indexLength, s.dataLength, s.footerLength, end)
			}
			sum += p
		}
		if s.numberOfRows > 1<<62 || s.numberOfRows > f.ft.numberOfRows-rows {
			return corruptf("stripe %d: row counts exceed the footer's %d rows", i, f.ft.numberOfRows)
		}
		rows += s.numberOfRows
	}
	if rows != f.ft.numberOfRows {
		return corruptf("footer: stripes hold %d rows, footer says %d", rows, f.ft.numberOfRows)
	}
	return nil
}

// buildTree links the flat type list into a tree, requiring the pre-order
// numbering the specification prescribes (so the tree is acyclic and every
// type is used once).
func buildTree(ts []orcType) (*node, error) {
	if len(ts) == 0 {
		return nil, corruptf("footer: empty type list")
	}
	next := 0
	var visit func(depth int) (*node, error)
	visit = func(depth int) (*node, error) {
		if depth > maxDepth {
			return nil, unsupportedf("type tree deeper than %d", maxDepth)
		}
		id := next
		next++
		t := &ts[id]
		n := &node{id: id, t: t}
		switch t.kind {
		case kindStruct:
			if len(t.fieldNames) != len(t.subtypes) {
				return nil, corruptf("footer type %d: struct has %d field names for %d subtypes", id, len(t.fieldNames), len(t.subtypes))
			}
		case kindList:
			if len(t.subtypes) != 1 {
				return nil, corruptf("footer type %d: list has %d subtypes", id, len(t.subtypes))
			}
		case kindMap:
			if len(t.subtypes) != 2 {
				return nil, corruptf("footer type %d: map has %d subtypes", id, len(t.subtypes))
			}
		case kindUnion:
			return nil, unsupportedf("footer type %d: uniontype columns", id)
		default:
			if t.kind > kindTimestampInstant {
				return nil, unsupportedf("footer type %d: type kind %d", id, t.kind)
			}
			if len(t.subtypes) != 0 {
				return nil, corruptf("footer type %d: %s has subtypes", id, kindName(t.kind))
			}
		}
		for i, sub := range t.subtypes {
			if sub != uint64(next) || next >= len(ts) {
				return nil, corruptf("footer type %d: subtype id %d is not the next pre-order id %d", id, sub, next)
			}
			ch, err := visit(depth + 1)
			if err != nil {
				return nil, err
			}
			if t.kind == kindStruct {
				ch.name = t.fieldNames[i]
			}
			n.children = append(n.children, ch)
		}
		return n, nil
	}
	root, err := visit(0)
	if err != nil {
		return nil, err
	}
	if next != len(ts) {
		return nil, corruptf("footer: %d types, only %d reachable from the root", len(ts), next)
	}
	if root.t.kind != kindStruct {
		return nil, unsupportedf("root type %s (want struct)", kindName(root.t.kind))
	}
	return root, nil
}

// defaultField returns the Arrow field of a column: name, its default Arrow
// type, nullable, and metadata PARQUET:field_id = the paimon.id attribute
// when present.
func defaultField(n *node) (arrow.Field, error) {
	t, err := defaultType(n)
	if err != nil {
		return arrow.Field{}, err
	}
	return arrow.Field{Name: n.name, Type: t, Nullable: true, Metadata: fieldMetadata(n)}, nil
}

func fieldMetadata(n *node) arrow.Metadata {
	id, ok := n.t.attributes[FieldIDAttribute]
	if !ok {
		return arrow.Metadata{}
	}
	return arrow.NewMetadata([]string{types.FieldIDKey}, []string{id})
}

// decimalShape returns precision and scale of a decimal type; files from
// Hive 0.11 carry none and mean the ORC defaults (38, 10).
func decimalShape(t *orcType) (int32, int32, error) {
	if !t.hasPrec || t.precision == 0 {
		return 38, 10, nil
	}
	if t.precision > 38 || t.scale > t.precision {
		return 0, 0, unsupportedf("decimal(%d,%d)", t.precision, t.scale)
	}
	return int32(t.precision), int32(t.scale), nil
}

// defaultType maps an ORC type to Arrow (the project's Paimon↔Arrow
// mapping): boolean Boolean, tinyint Int8, smallint Int16, int Int32, bigint
// Int64, float Float32, double Float64, string/varchar/char String, binary
// Binary, decimal(p,s) Decimal128(p,s), date Date32, timestamp
// Timestamp(ns), timestamp with local time zone Timestamp(ns, "UTC"),
// array List(element), map Map(key, value), struct Struct.
func defaultType(n *node) (arrow.DataType, error) {
	switch n.t.kind {
	case kindBoolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case kindByte:
		return arrow.PrimitiveTypes.Int8, nil
	case kindShort:
		return arrow.PrimitiveTypes.Int16, nil
	case kindInt:
		return arrow.PrimitiveTypes.Int32, nil
	case kindLong:
		return arrow.PrimitiveTypes.Int64, nil
	case kindFloat:
		return arrow.PrimitiveTypes.Float32, nil
	case kindDouble:
		return arrow.PrimitiveTypes.Float64, nil
	case kindString, kindVarchar, kindChar:
		return arrow.BinaryTypes.String, nil
	case kindBinary:
		return arrow.BinaryTypes.Binary, nil
	case kindDecimal:
		p, s, err := decimalShape(n.t)
		if err != nil {
			return nil, err
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	case kindDate:
		return arrow.FixedWidthTypes.Date32, nil
	case kindTimestamp:
		return &arrow.TimestampType{Unit: arrow.Nanosecond}, nil
	case kindTimestampInstant:
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
	case kindList:
		et, err := defaultType(n.children[0])
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: types.ListElementName, Type: et, Nullable: true,
			Metadata: fieldMetadata(n.children[0])}), nil
	case kindMap:
		kt, err := defaultType(n.children[0])
		if err != nil {
			return nil, err
		}
		vt, err := defaultType(n.children[1])
		if err != nil {
			return nil, err
		}
		return arrow.MapOfWithMetadata(kt, fieldMetadata(n.children[0]), vt, fieldMetadata(n.children[1])), nil
	case kindStruct:
		fs := make([]arrow.Field, len(n.children))
		for i, ch := range n.children {
			var err error
			if fs[i], err = defaultField(ch); err != nil {
				return nil, err
			}
		}
		return arrow.StructOf(fs...), nil
	}
	return nil, unsupportedf("type kind %s", kindName(n.t.kind))
}

// Schema returns the Arrow schema of the file's top-level columns (see
// defaultType for the type mapping). Every field is nullable and carries
// metadata "PARQUET:field_id" with the column's paimon.id attribute when
// the writer set one.
func (f *File) Schema() *arrow.Schema { return f.schema }

// NumRows returns the number of rows in the file (Footer.numberOfRows).
func (f *File) NumRows() int64 { return int64(f.ft.numberOfRows) }

// NumStripes returns the number of stripes in the file.
func (f *File) NumStripes() int { return len(f.ft.stripes) }

// readFull reads len(p) bytes at off. A reader that returns fewer bytes
// (the file is shorter than the size given to Open) yields ErrCorrupt;
// other reader errors are returned wrapped as they are.
func readFull(r io.ReaderAt, p []byte, off int64, what string) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return corruptf("%s: read %d of %d bytes at offset %d", what, n, len(p), off)
	}
	return fmt.Errorf("orc: read %s: %w", what, err)
}
