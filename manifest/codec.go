package manifest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/internal/ocf"
)

// This file holds the machinery shared by all manifest record types: a small Paimon-like type
// description (ptype) from which the Avro schema JSON is generated exactly as Java's
// AvroSchemaConverter does, and per-field encode/decode functions. Decoding compiles a plan from
// the writer schema of a file: fields are matched by name (Java's AvroRowDatumReader semantics),
// unknown writer fields are skipped, absent nullable fields stay null.

// pkind is the Paimon type root of a manifest field.
type pkind uint8

const (
	pInt             pkind = iota // INT / TINYINT -> Avro int
	pLong                         // BIGINT -> Avro long
	pString                       // STRING -> Avro string
	pBytes                        // BYTES -> Avro bytes
	pTimestampMillis              // TIMESTAMP(3) -> long + logicalType timestamp-millis
	pArray                        // ARRAY -> Avro array
	pRow                          // ROW -> Avro record
)

// rowID identifies a record type whose field count varies between schema generations.
type rowID uint8

const (
	rowEntry  rowID = iota // manifest entry (top level)
	rowFile                // DataFileMeta
	rowStats               // SimpleStats
	rowList                // manifest list row (top level)
	rowIndex               // index manifest row (top level)
	rowDV                  // DeletionVectorMeta
	rowGlobal              // GlobalIndexMeta
	numRows
)

// ptype is a Paimon data type as far as manifests need it.
type ptype struct {
	kind     pkind
	nullable bool
	elem     *ptype   // pArray
	row      *rowDesc // pRow
}

// rowDesc lists the fields of a record type in Java's declaration order.
type rowDesc struct {
	id     rowID
	fields []pfield
}

type pfield struct {
	name string
	typ  *ptype
}

// gen selects a schema generation: which prefix of each record's fields is written and whether
// records are wrapped in ["null", record] unions (files written before Paimon commit e4d4bdb484,
// i.e. 0.8 and early 0.9 builds).
type gen struct {
	wrapped bool
	n       [numRows]int // fields per record; 0 = all
}

func (g *gen) count(id rowID, all int) int {
	if n := g.n[id]; n > 0 && n < all {
		return n
	}
	return all
}

// nullable reports whether t is written as a ["null", T] union in generation g.
func (g *gen) nullable(t *ptype) bool {
	return t.nullable || (g.wrapped && t.kind == pRow)
}

const avroNamespace = "org.apache.paimon.avro.generated"

// schemaJSON renders the Avro schema of top-level row desc in generation g, byte for byte as
// Java's Avro Schema.toString() prints the schema produced by AvroSchemaConverter.
func schemaJSON(desc *rowDesc, g *gen) string {
	var b strings.Builder
	top := &ptype{kind: pRow, row: desc}
	writeType(&b, top, "record", g, true)
	return b.String()
}

func writeType(b *strings.Builder, t *ptype, rowName string, g *gen, top bool) {
	if g.nullable(t) {
		b.WriteString(`["null",`)
		writeBase(b, t, rowName, g, top)
		b.WriteString(`]`)
		return
	}
	writeBase(b, t, rowName, g, top)
}

func writeBase(b *strings.Builder, t *ptype, rowName string, g *gen, top bool) {
	switch t.kind {
	case pInt:
		b.WriteString(`"int"`)
	case pLong:
		b.WriteString(`"long"`)
	case pString:
		b.WriteString(`"string"`)
	case pBytes:
		b.WriteString(`"bytes"`)
	case pTimestampMillis:
		b.WriteString(`{"type":"long","logicalType":"timestamp-millis"}`)
	case pArray:
		b.WriteString(`{"type":"array","items":`)
		writeType(b, t.elem, rowName, g, false)
		b.WriteString(`}`)
	case pRow:
		b.WriteString(`{"type":"record","name":"`)
		b.WriteString(rowName)
		b.WriteString(`"`)
		if top {
			b.WriteString(`,"namespace":"` + avroNamespace + `"`)
		}
		b.WriteString(`,"fields":[`)
		n := g.count(t.row.id, len(t.row.fields))
		for i, f := range t.row.fields[:n] {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":"`)
			b.WriteString(f.name)
			b.WriteString(`","type":`)
			writeType(b, f.typ, rowName+"_"+f.name, g, false)
			if g.nullable(f.typ) {
				b.WriteString(`,"default":null`)
			}
			b.WriteString(`}`)
		}
		b.WriteString(`]}`)
	}
}

// dec is a compiled decoder for one value.
type dec[V any] func(d *ocf.Decoder) V

// comp compiles a decoder of V from a (non-union) writer schema.
type comp[V any] func(ws *ocf.Schema, c *compiler) (dec[V], error)

// compiler carries per-file compilation state (skipper memo for recursive unknown records).
type compiler struct {
	skips map[*ocf.Schema]*func(*ocf.Decoder)
}

func newCompiler() *compiler {
	return &compiler{skips: map[*ocf.Schema]*func(*ocf.Decoder){}}
}

// optional compiles ws, which may be a union, into a decoder that reports whether a value was
// present (false when the union's null branch was selected).
func optional[V any](ws *ocf.Schema, c *compiler, base comp[V]) (func(d *ocf.Decoder) (V, bool), error) {
	if ws.Type != ocf.Union {
		f, err := base(ws, c)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder) (V, bool) { return f(d), true }, nil
	}
	types := ws.Branches
	branches, err := unionBranches(types, c, base)
	if err != nil {
		return nil, err
	}
	n := int64(len(types))
	return func(d *ocf.Decoder) (V, bool) {
		var zero V
		i := d.Long()
		if d.Err() != nil {
			return zero, false
		}
		if i < 0 || i >= n {
			d.Failf("union branch %d out of range [0,%d)", i, n)
			return zero, false
		}
		f := branches[i]
		if f == nil {
			if types[i].Type != ocf.Null {
				d.Failf("union branch %d has type %s, which cannot be read here", i, types[i].Type)
			}
			return zero, false
		}
		return f(d), true
	}, nil
}

func typeErr(ws *ocf.Schema, want string) error {
	return fmt.Errorf("writer type %s cannot be read as %s", ws.Type, want)
}

func cLong(ws *ocf.Schema, _ *compiler) (dec[int64], error) {
	switch ws.Type {
	case ocf.Long:
		return (*ocf.Decoder).Long, nil
	case ocf.Int:
		return func(d *ocf.Decoder) int64 { return int64(d.Int()) }, nil
	}
	return nil, typeErr(ws, "long")
}

func cInt(ws *ocf.Schema, _ *compiler) (dec[int32], error) {
	if ws.Type == ocf.Int {
		return (*ocf.Decoder).Int, nil
	}
	return nil, typeErr(ws, "int")
}

func cString(ws *ocf.Schema, _ *compiler) (dec[string], error) {
	switch ws.Type {
	case ocf.String, ocf.Bytes:
		return (*ocf.Decoder).String, nil
	}
	return nil, typeErr(ws, "string")
}

func cBytes(ws *ocf.Schema, _ *compiler) (dec[[]byte], error) {
	switch ws.Type {
	case ocf.String, ocf.Bytes:
		return (*ocf.Decoder).Bytes, nil
	}
	return nil, typeErr(ws, "bytes")
}

// cNullableLong decodes a ["null","long"] array element, mapping null to -1 (null counts).
func cNullableLong(ws *ocf.Schema, c *compiler) (dec[int64], error) {
	f, err := optional(ws, c, cLong)
	if err != nil {
		return nil, err
	}
	return func(d *ocf.Decoder) int64 {
		v, ok := f(d)
		if !ok {
			return -1
		}
		return v
	}, nil
}

// nonNull wraps base so that it also accepts a ["null", T] writer union, failing when the data
// selects null (used for array elements that Java declares NOT NULL).
func nonNull[V any](base comp[V]) comp[V] {
	return func(ws *ocf.Schema, c *compiler) (dec[V], error) {
		f, err := optional(ws, c, base)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder) V {
			v, ok := f(d)
			if !ok && d.Err() == nil {
				d.Failf("null array element")
			}
			return v
		}, nil
	}
}

// cArray compiles an array whose elements are decoded by elem. elem receives the items schema as
// written, which may be a union (see nonNull and cNullableLong).
func cArray[V any](elem comp[V]) comp[[]V] {
	return func(ws *ocf.Schema, c *compiler) (dec[[]V], error) {
		if ws.Type != ocf.Array {
			return nil, typeErr(ws, "array")
		}
		f, err := elem(ws.Items, c)
		if err != nil {
			return nil, err
		}
		size := int64(reflect.TypeFor[V]().Size())
		return func(d *ocf.Decoder) []V {
			var out []V
			for {
				n := d.BlockCount(1)
				if n == 0 || d.Err() != nil || !d.Charge(int64(n)*size) {
					if out == nil {
						out = []V{}
					}
					return out
				}
				out = slices.Grow(out, n)
				for i := 0; i < n && d.Err() == nil; i++ {
					out = append(out, f(d))
				}
			}
		}, nil
	}
}

// field is one field of a record type T: its Paimon type (for the schema), its encoder and a
// decoder factory bound to the writer schema of the field.
type field[T any] struct {
	name string
	typ  *ptype
	enc  func(e *ocf.Encoder, v *T, g *gen)
	dec  func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error)
}

// table is a record type: its description and fields.
type table[T any] struct {
	desc   *rowDesc
	fields []field[T]
}

func newTable[T any](id rowID, fields ...field[T]) *table[T] {
	desc := &rowDesc{id: id}
	for _, f := range fields {
		desc.fields = append(desc.fields, pfield{name: f.name, typ: f.typ})
	}
	return &table[T]{desc: desc, fields: fields}
}

func (t *table[T]) ptype(nullable bool) *ptype {
	return &ptype{kind: pRow, nullable: nullable, row: t.desc}
}

// encode writes v as a record of generation g (without a union prefix).
func (t *table[T]) encode(e *ocf.Encoder, v *T, g *gen) {
	n := g.count(t.desc.id, len(t.fields))
	for i := range t.fields[:n] {
		t.fields[i].enc(e, v, g)
	}
}

// compile builds a decoder of T from a writer record schema.
func (t *table[T]) compile(ws *ocf.Schema, c *compiler) (dec[T], error) {
	f, err := t.compileInto(ws, c)
	if err != nil {
		return nil, err
	}
	return func(d *ocf.Decoder) T {
		var v T
		f(d, &v)
		return v
	}, nil
}

// compileInto builds a decoder from a writer record schema that fills the
// fields of a T in place (records held in slices or in other records are
// decoded where they are kept, not built elsewhere and copied).
func (t *table[T]) compileInto(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
	if ws.Type != ocf.Record {
		return nil, typeErr(ws, "record")
	}
	steps := make([]func(d *ocf.Decoder, v *T), 0, len(ws.Fields))
	seen := make(map[string]bool, len(ws.Fields))
	for _, wf := range ws.Fields {
		var step func(d *ocf.Decoder, v *T)
		for i := range t.fields {
			if t.fields[i].name == wf.Name {
				s, err := t.fields[i].dec(wf.Type, c)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", wf.Name, err)
				}
				step = s
				seen[wf.Name] = true
				break
			}
		}
		if step == nil {
			skip := c.skipper(wf.Type)
			step = func(d *ocf.Decoder, _ *T) { skip(d) }
		}
		steps = append(steps, step)
	}
	for _, f := range t.fields {
		if !f.typ.nullable && !seen[f.name] {
			return nil, fmt.Errorf("writer schema lacks required field %s", f.name)
		}
	}
	return func(d *ocf.Decoder, v *T) {
		if !d.Enter() {
			return
		}
		for _, s := range steps {
			s(d, v)
			if d.Err() != nil {
				break
			}
		}
		d.Leave()
	}, nil
}

// unionBranches compiles each non-null branch of a union with base; the
// null branch, and a branch base cannot compile, stay nil (a branch of
// another type is only an error when the data selects it). It fails with
// base's first error when no branch compiles.
func unionBranches[F any](types []*ocf.Schema, c *compiler, base func(ws *ocf.Schema, c *compiler) (F, error)) ([]F, error) {
	branches := make([]F, len(types))
	usable := false
	var firstErr error
	for i, t := range types {
		if t.Type == ocf.Null {
			continue
		}
		f, err := base(t, c)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		branches[i] = f
		usable = true
	}
	if !usable && firstErr != nil {
		return nil, firstErr
	}
	return branches, nil
}

// optionalInto is optional for decoders that fill a value in place: it
// reports false, leaving *v alone, when the union's null branch was
// selected.
func optionalInto[V any](ws *ocf.Schema, c *compiler, base func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *V), error)) (func(d *ocf.Decoder, v *V) bool, error) {
	if ws.Type != ocf.Union {
		f, err := base(ws, c)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder, v *V) bool { f(d, v); return true }, nil
	}
	types := ws.Branches
	branches, err := unionBranches(types, c, base)
	if err != nil {
		return nil, err
	}
	n := int64(len(types))
	return func(d *ocf.Decoder, v *V) bool {
		i := d.Long()
		if d.Err() != nil {
			return false
		}
		if i < 0 || i >= n {
			d.Failf("union branch %d out of range [0,%d)", i, n)
			return false
		}
		f := branches[i]
		if f == nil {
			if types[i].Type != ocf.Null {
				d.Failf("union branch %d has type %s, which cannot be read here", i, types[i].Type)
			}
			return false
		}
		f(d, v)
		return true
	}, nil
}

// recField is reqField for a field of record type V, decoded in place
// into *get(v).
func recField[T, V any](name string, sub *table[V], get func(*T) *V,
	enc func(e *ocf.Encoder, v V, g *gen)) field[T] {
	f := reqField(name, sub.ptype(false), sub.compile, get, enc)
	f.dec = func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
		into, err := optionalInto(ws, c, sub.compileInto)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder, v *T) {
			if !into(d, get(v)) {
				d.Failf("null value in required field %s", name)
			}
		}, nil
	}
	return f
}

// reqField is a NOT NULL field stored in *get(v).
func reqField[T, V any](name string, typ *ptype, base comp[V], get func(*T) *V,
	enc func(e *ocf.Encoder, v V, g *gen)) field[T] {
	return field[T]{
		name: name,
		typ:  typ,
		enc: func(e *ocf.Encoder, v *T, g *gen) {
			if g.nullable(typ) {
				e.NonNull()
			}
			enc(e, *get(v), g)
		},
		dec: func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
			f, err := optional(ws, c, base)
			if err != nil {
				return nil, err
			}
			return func(d *ocf.Decoder, v *T) {
				x, ok := f(d)
				if !ok {
					d.Failf("null value in required field %s", name)
					return
				}
				*get(v) = x
			}, nil
		},
	}
}

// ptrField is a nullable field stored as a pointer (nil = null).
func ptrField[T, V any](name string, typ *ptype, base comp[V], get func(*T) **V,
	enc func(e *ocf.Encoder, v V, g *gen)) field[T] {
	return field[T]{
		name: name,
		typ:  typ,
		enc: func(e *ocf.Encoder, v *T, g *gen) {
			p := *get(v)
			if p == nil {
				e.Null()
				return
			}
			e.NonNull()
			enc(e, *p, g)
		},
		dec: func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
			f, err := optional(ws, c, base)
			if err != nil {
				return nil, err
			}
			return func(d *ocf.Decoder, v *T) {
				if x, ok := f(d); ok {
					*get(v) = &x
				}
			}, nil
		},
	}
}

// sliceField is a nullable field stored as a slice (nil = null, empty non-nil = empty value).
func sliceField[T any, S ~[]E, E any](name string, typ *ptype, base comp[S], get func(*T) *S,
	enc func(e *ocf.Encoder, v S, g *gen)) field[T] {
	return field[T]{
		name: name,
		typ:  typ,
		enc: func(e *ocf.Encoder, v *T, g *gen) {
			s := *get(v)
			if s == nil {
				e.Null()
				return
			}
			e.NonNull()
			enc(e, s, g)
		},
		dec: func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
			f, err := optional(ws, c, base)
			if err != nil {
				return nil, err
			}
			return func(d *ocf.Decoder, v *T) {
				if x, ok := f(d); ok {
					if x == nil {
						x = S{}
					}
					*get(v) = x
				}
			}, nil
		},
	}
}

// Encoders of values.

func eLong(e *ocf.Encoder, v int64, _ *gen)    { e.Long(v) }
func eInt(e *ocf.Encoder, v int32, _ *gen)     { e.Int(v) }
func eString(e *ocf.Encoder, v string, _ *gen) { e.String(v) }
func eBytes(e *ocf.Encoder, v []byte, _ *gen)  { e.Bytes(v) }

func eArray[V any](elem func(e *ocf.Encoder, v V, g *gen)) func(e *ocf.Encoder, v []V, g *gen) {
	return func(e *ocf.Encoder, v []V, g *gen) {
		if len(v) > 0 {
			e.Long(int64(len(v)))
			for _, x := range v {
				elem(e, x, g)
			}
		}
		e.Long(0)
	}
}

// eNullCounts writes an array<["null","long"]>, -1 meaning null.
func eNullCounts(e *ocf.Encoder, v []int64, _ *gen) {
	if len(v) > 0 {
		e.Long(int64(len(v)))
		for _, x := range v {
			if x == -1 {
				e.Null()
			} else {
				e.NonNull()
				e.Long(x)
			}
		}
	}
	e.Long(0)
}

// skipper compiles a function that skips a value of writer schema s.
func (c *compiler) skipper(s *ocf.Schema) func(d *ocf.Decoder) {
	switch s.Type {
	case ocf.Null:
		return func(*ocf.Decoder) {}
	case ocf.Boolean:
		return func(d *ocf.Decoder) { d.Boolean() }
	case ocf.Int:
		return func(d *ocf.Decoder) { d.Int() }
	case ocf.Long:
		return func(d *ocf.Decoder) { d.Long() }
	case ocf.Float:
		return func(d *ocf.Decoder) { d.Skip(4) }
	case ocf.Double:
		return func(d *ocf.Decoder) { d.Skip(8) }
	case ocf.String, ocf.Bytes:
		return (*ocf.Decoder).SkipBytes
	case ocf.Fixed:
		n := s.Size
		return func(d *ocf.Decoder) { d.Skip(n) }
	case ocf.Enum:
		n := int32(s.Size)
		return func(d *ocf.Decoder) {
			if i := d.Int(); i < 0 || i >= n {
				d.Failf("enum index %d out of range", i)
			}
		}
	case ocf.Array:
		items := s.Items
		item := c.skipper(items)
		zero := c.zeroSize(items, 0)
		return func(d *ocf.Decoder) {
			for {
				if zero {
					if d.BlockCount(0) == 0 || d.Err() != nil {
						return
					}
					continue
				}
				n := d.BlockCount(1)
				if n == 0 || d.Err() != nil {
					return
				}
				for i := 0; i < n && d.Err() == nil; i++ {
					item(d)
				}
			}
		}
	case ocf.Map:
		val := c.skipper(s.Values)
		return func(d *ocf.Decoder) {
			for {
				n := d.BlockCount(1)
				if n == 0 || d.Err() != nil {
					return
				}
				for i := 0; i < n && d.Err() == nil; i++ {
					d.SkipBytes()
					val(d)
				}
			}
		}
	case ocf.Union:
		types := s.Branches
		branches := make([]func(*ocf.Decoder), len(types))
		for i, t := range types {
			branches[i] = c.skipper(t)
		}
		return func(d *ocf.Decoder) {
			i := d.Long()
			if d.Err() != nil {
				return
			}
			if i < 0 || i >= int64(len(branches)) {
				d.Failf("union branch %d out of range [0,%d)", i, len(branches))
				return
			}
			branches[i](d)
		}
	case ocf.Record:
		if p, ok := c.skips[s]; ok {
			return func(d *ocf.Decoder) { (*p)(d) }
		}
		p := new(func(*ocf.Decoder))
		c.skips[s] = p
		fields := make([]func(*ocf.Decoder), len(s.Fields))
		for i, f := range s.Fields {
			fields[i] = c.skipper(f.Type)
		}
		*p = func(d *ocf.Decoder) {
			if !d.Enter() {
				return
			}
			for _, f := range fields {
				f(d)
				if d.Err() != nil {
					break
				}
			}
			d.Leave()
		}
		return *p
	}
	return func(d *ocf.Decoder) { d.Fail(errors.New("unsupported writer type " + s.Type.String())) }
}

// zeroSize reports whether a value of s can be encoded in zero bytes (null, empty fixed, or
// records made only of such). Recursive records are treated as zero-size, which is conservative.
func (c *compiler) zeroSize(s *ocf.Schema, depth int) bool {
	switch s.Type {
	case ocf.Null:
		return true
	case ocf.Fixed:
		return s.Size == 0
	case ocf.Record:
		if depth > 16 {
			return true
		}
		for _, f := range s.Fields {
			if !c.zeroSize(f.Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
