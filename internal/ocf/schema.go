package ocf

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Type is the type of an Avro schema node.
type Type uint8

// Avro types.
const (
	Null Type = iota
	Boolean
	Int
	Long
	Float
	Double
	Bytes
	String
	Record
	Enum
	Array
	Map
	Fixed
	Union
)

var typeNames = [...]string{"null", "boolean", "int", "long", "float", "double", "bytes", "string",
	"record", "enum", "array", "map", "fixed", "union"}

// String returns the Avro name of t.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Schema is a parsed Avro schema node. Named types referenced more than once (or recursively)
// are the same *Schema, so the graph may contain cycles.
type Schema struct {
	Type Type
	// Name is the full name of a record, enum or fixed.
	Name string
	// Fields of a record, in order.
	Fields []Field
	// Items of an array, Values of a map.
	Items, Values *Schema
	// Branches of a union.
	Branches []*Schema
	// Size of a fixed; number of symbols of an enum.
	Size int
	// Logical is the logicalType attribute, if any.
	Logical string
	// Precision and Scale of a "decimal" logical type (bytes or fixed).
	Precision, Scale int
}

// Field is a record field.
type Field struct {
	Name string
	Type *Schema
}

// maxSchemaDepth bounds the nesting of schema JSON.
const maxSchemaDepth = 64

// ParseSchema parses the JSON of an Avro schema (the "avro.schema" header entry). It resolves
// named-type references and namespaces as the Avro specification describes; errors wrap
// ErrCorrupt. Only the information needed for decoding is kept (no defaults, docs, aliases).
func ParseSchema(data []byte) (*Schema, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%w: schema JSON: %w", ErrCorrupt, err)
	}
	p := &schemaParser{named: map[string]*Schema{}}
	s, err := p.parse(v, "", 0)
	if err != nil {
		return nil, fmt.Errorf("%w: schema: %w", ErrCorrupt, err)
	}
	return s, nil
}

type schemaParser struct {
	named map[string]*Schema
}

func primitive(name string) (Type, bool) {
	switch name {
	case "null":
		return Null, true
	case "boolean":
		return Boolean, true
	case "int":
		return Int, true
	case "long":
		return Long, true
	case "float":
		return Float, true
	case "double":
		return Double, true
	case "bytes":
		return Bytes, true
	case "string":
		return String, true
	}
	return 0, false
}

func fullName(name, namespace string) string {
	if strings.Contains(name, ".") || namespace == "" {
		return name
	}
	return namespace + "." + name
}

func (p *schemaParser) parse(v any, namespace string, depth int) (*Schema, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxSchemaDepth)
	}
	switch x := v.(type) {
	case string:
		if t, ok := primitive(x); ok {
			return &Schema{Type: t}, nil
		}
		if s, ok := p.named[fullName(x, namespace)]; ok {
			return s, nil
		}
		if s, ok := p.named[x]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("unknown type %q", x)
	case []any:
		u := &Schema{Type: Union}
		for _, b := range x {
			s, err := p.parse(b, namespace, depth+1)
			if err != nil {
				return nil, err
			}
			if s.Type == Union {
				return nil, fmt.Errorf("union directly inside a union")
			}
			u.Branches = append(u.Branches, s)
		}
		if len(u.Branches) == 0 {
			return nil, fmt.Errorf("empty union")
		}
		return u, nil
	case map[string]any:
		return p.parseObject(x, namespace, depth)
	}
	return nil, fmt.Errorf("invalid schema value %T", v)
}

func str(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok
}

func (p *schemaParser) define(m map[string]any, namespace string, s *Schema) (string, error) {
	name, ok := str(m, "name")
	if !ok || name == "" {
		return "", fmt.Errorf("%s without a name", s.Type)
	}
	if ns, ok := str(m, "namespace"); ok && !strings.Contains(name, ".") {
		namespace = ns
	}
	s.Name = fullName(name, namespace)
	if _, dup := p.named[s.Name]; dup {
		return "", fmt.Errorf("type %q defined twice", s.Name)
	}
	p.named[s.Name] = s
	if i := strings.LastIndex(s.Name, "."); i >= 0 {
		return s.Name[:i], nil
	}
	return "", nil
}

func (p *schemaParser) parseObject(m map[string]any, namespace string, depth int) (*Schema, error) {
	typ, ok := m["type"]
	if !ok {
		return nil, fmt.Errorf("object without type")
	}
	tname, ok := typ.(string)
	if !ok {
		// {"type": {...}} or {"type": [...]}: the nested schema is the type.
		return p.parse(typ, namespace, depth+1)
	}
	logical, _ := str(m, "logicalType")
	prec, _ := m["precision"].(float64)
	scale, _ := m["scale"].(float64)
	if t, ok := primitive(tname); ok {
		return &Schema{Type: t, Logical: logical, Precision: int(prec), Scale: int(scale)}, nil
	}
	switch tname {
	case "record", "error":
		s := &Schema{Type: Record, Logical: logical}
		ns, err := p.define(m, namespace, s)
		if err != nil {
			return nil, err
		}
		fields, ok := m["fields"].([]any)
		if !ok {
			return nil, fmt.Errorf("record %s without fields", s.Name)
		}
		seen := map[string]bool{}
		for _, f := range fields {
			fm, ok := f.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("record %s: field is not an object", s.Name)
			}
			name, ok := str(fm, "name")
			if !ok {
				return nil, fmt.Errorf("record %s: field without name", s.Name)
			}
			if seen[name] {
				return nil, fmt.Errorf("record %s: duplicate field %s", s.Name, name)
			}
			seen[name] = true
			ft, ok := fm["type"]
			if !ok {
				return nil, fmt.Errorf("record %s: field %s without type", s.Name, name)
			}
			t, err := p.parse(ft, ns, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
			s.Fields = append(s.Fields, Field{Name: name, Type: t})
		}
		return s, nil
	case "enum":
		s := &Schema{Type: Enum, Logical: logical}
		if _, err := p.define(m, namespace, s); err != nil {
			return nil, err
		}
		syms, ok := m["symbols"].([]any)
		if !ok || len(syms) == 0 {
			return nil, fmt.Errorf("enum %s without symbols", s.Name)
		}
		s.Size = len(syms)
		return s, nil
	case "fixed":
		s := &Schema{Type: Fixed, Logical: logical, Precision: int(prec), Scale: int(scale)}
		if _, err := p.define(m, namespace, s); err != nil {
			return nil, err
		}
		size, ok := m["size"].(float64)
		if !ok || size < 0 || size > 1<<20 || size != float64(int(size)) {
			return nil, fmt.Errorf("fixed %s has invalid size", s.Name)
		}
		s.Size = int(size)
		return s, nil
	case "array":
		items, ok := m["items"]
		if !ok {
			return nil, fmt.Errorf("array without items")
		}
		it, err := p.parse(items, namespace, depth+1)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: Array, Items: it, Logical: logical}, nil
	case "map":
		values, ok := m["values"]
		if !ok {
			return nil, fmt.Errorf("map without values")
		}
		vt, err := p.parse(values, namespace, depth+1)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: Map, Values: vt, Logical: logical}, nil
	}
	// A named type used as {"type": "name"}.
	return p.parse(tname, namespace, depth+1)
}
