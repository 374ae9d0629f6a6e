package types

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseJSON parses one DataType from its JSON form (Java
// DataTypeJsonParser.parseDataType): a JSON string holding the SQL form of an
// atomic type (see ParseSQL), or an object
//
//	{"type": "ARRAY[ NOT NULL]",    "element": <type>}
//	{"type": "MULTISET[ NOT NULL]", "element": <type>}
//	{"type": "MAP[ NOT NULL]",      "key": <type>, "value": <type>}
//	{"type": "ROW[ NOT NULL]",      "fields": [<DataField>...]}
//
// As in Java the object "type" is matched by prefix and nullability by the
// presence of "NOT NULL" (here case-insensitively). ROW fields without "id"
// get ids from a counter starting at 0 in document order; mixing fields with
// and without ids is an error. VECTOR objects are rejected. Errors wrap
// ErrUnknownType.
func ParseJSON(data []byte) (DataType, error) {
	counter := -1
	return parseTypeJSON(data, &counter)
}

// ParseFieldJSON parses one DataField object
// {"id", "name", "type", "description"?, "defaultValue"?} (Java
// DataTypeJsonParser.parseDataField). Errors wrap ErrUnknownType.
func ParseFieldJSON(data []byte) (DataField, error) {
	return parseFieldJSON(data, nil)
}

// MarshalJSON writes t in Java's canonical JSON form (DataType.serializeJson):
// atomic types as their SQL string ("INT NOT NULL", "DECIMAL(10, 2)",
// "STRING"), composites as objects with keys in Java's order.
func (t DataType) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := t.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalJSON parses t with ParseJSON.
func (t *DataType) UnmarshalJSON(data []byte) error {
	v, err := ParseJSON(data)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalJSON writes f as Java DataField.serializeJson: keys id, name, type,
// then description and defaultValue only when non-empty.
func (f DataField) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := f.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalJSON parses f with ParseFieldJSON.
func (f *DataField) UnmarshalJSON(data []byte) error {
	v, err := ParseFieldJSON(data)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

func (t DataType) appendJSON(b *bytes.Buffer) error {
	nn := ""
	if !t.Nullable {
		nn = " NOT NULL"
	}
	switch t.Kind {
	case KindArray, KindMultiset:
		if t.Elem == nil {
			return fmt.Errorf("%w: %s without element type", ErrUnknownType, t.Kind)
		}
		b.WriteString(`{"type":`)
		AppendJSONString(b, t.Kind.String()+nn)
		b.WriteString(`,"element":`)
		if err := t.Elem.appendJSON(b); err != nil {
			return err
		}
		b.WriteByte('}')
	case KindMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", ErrUnknownType)
		}
		b.WriteString(`{"type":`)
		AppendJSONString(b, "MAP"+nn)
		b.WriteString(`,"key":`)
		if err := t.Key.appendJSON(b); err != nil {
			return err
		}
		b.WriteString(`,"value":`)
		if err := t.Value.appendJSON(b); err != nil {
			return err
		}
		b.WriteByte('}')
	case KindRow:
		b.WriteString(`{"type":`)
		AppendJSONString(b, "ROW"+nn)
		b.WriteString(`,"fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := f.appendJSON(b); err != nil {
				return err
			}
		}
		b.WriteString(`]}`)
	default:
		if err := t.Validate(); err != nil {
			return err
		}
		AppendJSONString(b, t.String())
	}
	return nil
}

func (f DataField) appendJSON(b *bytes.Buffer) error {
	b.WriteString(`{"id":`)
	b.WriteString(strconv.Itoa(f.ID))
	b.WriteString(`,"name":`)
	AppendJSONString(b, f.Name)
	b.WriteString(`,"type":`)
	if err := f.Type.appendJSON(b); err != nil {
		return fmt.Errorf("field %q: %w", f.Name, err)
	}
	if f.Description != "" {
		b.WriteString(`,"description":`)
		AppendJSONString(b, f.Description)
	}
	if f.DefaultValue != "" {
		b.WriteString(`,"defaultValue":`)
		AppendJSONString(b, f.DefaultValue)
	}
	b.WriteByte('}')
	return nil
}

// AppendJSONString writes s as a JSON string literal the way Jackson does:
// '"' and '\\' escaped, \b \t \n \f \r as short escapes, other control
// characters as \u00XX (upper-case hex), everything else (including '/',
// '<', '&' and non-ASCII) verbatim. Invalid UTF-8 bytes become U+FFFD.
func AppendJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\f':
				b.WriteString(`\f`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

func parseTypeJSON(data []byte, counter *int) (DataType, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return DataType{}, fmt.Errorf("%w: empty type JSON", ErrUnknownType)
	}
	switch data[0] {
	case '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return DataType{}, fmt.Errorf("%w: %v", ErrUnknownType, err)
		}
		return ParseSQL(s)
	case '{':
		var obj struct {
			Type    *string         `json:"type"`
			Element json.RawMessage `json:"element"`
			Key     json.RawMessage `json:"key"`
			Value   json.RawMessage `json:"value"`
			Fields  json.RawMessage `json:"fields"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return DataType{}, fmt.Errorf("%w: %v", ErrUnknownType, err)
		}
		if obj.Type == nil {
			return DataType{}, fmt.Errorf("%w: type object without \"type\": %s", ErrUnknownType, truncate(data))
		}
		ts := strings.ToUpper(strings.TrimSpace(*obj.Type))
		nullable := !strings.Contains(ts, "NOT NULL")
		child := func(name string, raw json.RawMessage) (*DataType, error) {
			if raw == nil {
				return nil, fmt.Errorf("%w: %s type without %q", ErrUnknownType, *obj.Type, name)
			}
			t, err := parseTypeJSON(raw, counter)
			if err != nil {
				return nil, err
			}
			return &t, nil
		}
		switch {
		case strings.HasPrefix(ts, "ARRAY"), strings.HasPrefix(ts, "MULTISET"):
			elem, err := child("element", obj.Element)
			if err != nil {
				return DataType{}, err
			}
			kind := KindArray
			if strings.HasPrefix(ts, "MULTISET") {
				kind = KindMultiset
			}
			return DataType{Kind: kind, Nullable: nullable, Elem: elem}, nil
		case strings.HasPrefix(ts, "MAP"):
			key, err := child("key", obj.Key)
			if err != nil {
				return DataType{}, err
			}
			value, err := child("value", obj.Value)
			if err != nil {
				return DataType{}, err
			}
			return DataType{Kind: KindMap, Nullable: nullable, Key: key, Value: value}, nil
		case strings.HasPrefix(ts, "ROW"):
			if obj.Fields == nil {
				return DataType{}, fmt.Errorf("%w: ROW type without \"fields\"", ErrUnknownType)
			}
			var raws []json.RawMessage
			if err := json.Unmarshal(obj.Fields, &raws); err != nil {
				return DataType{}, fmt.Errorf("%w: ROW fields: %v", ErrUnknownType, err)
			}
			fields := make([]DataField, 0, len(raws))
			for _, raw := range raws {
				f, err := parseFieldJSON(raw, counter)
				if err != nil {
					return DataType{}, err
				}
				fields = append(fields, f)
			}
			t := DataType{Kind: KindRow, Nullable: nullable, Fields: fields}
			if err := t.Validate(); err != nil {
				return DataType{}, err
			}
			return t, nil
		}
		return DataType{}, fmt.Errorf("%w: unsupported composite type %q", ErrUnknownType, *obj.Type)
	}
	return DataType{}, fmt.Errorf("%w: cannot parse %s", ErrUnknownType, truncate(data))
}

// parseFieldJSON parses a DataField. counter (may be nil) hands out ids for
// fields without "id"; it is -1 until the first id-less field is seen and
// set to -2 once a field with an explicit id was seen, so that mixing is
// detected as in Java ("Partial field id is not allowed").
func parseFieldJSON(data []byte, counter *int) (DataField, error) {
	var obj struct {
		ID           *json.Number    `json:"id"`
		Name         *string         `json:"name"`
		Type         json.RawMessage `json:"type"`
		Description  *string         `json:"description"`
		DefaultValue *string         `json:"defaultValue"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return DataField{}, fmt.Errorf("%w: field: %v", ErrUnknownType, err)
	}
	if obj.Name == nil {
		return DataField{}, fmt.Errorf("%w: field without \"name\": %s", ErrUnknownType, truncate(data))
	}
	if obj.Type == nil {
		return DataField{}, fmt.Errorf("%w: field %q without \"type\"", ErrUnknownType, *obj.Name)
	}
	f := DataField{Name: *obj.Name}
	if obj.ID != nil {
		id, err := strconv.ParseInt(obj.ID.String(), 10, 32)
		if err != nil {
			return DataField{}, fmt.Errorf("%w: field %q: bad id %s", ErrUnknownType, f.Name, obj.ID.String())
		}
		if counter != nil && *counter >= 0 {
			return DataField{}, fmt.Errorf("%w: field %q: partial field ids are not allowed", ErrUnknownType, f.Name)
		}
		if counter != nil {
			*counter = -2
		}
		f.ID = int(id)
	} else {
		if counter == nil || *counter == -2 {
			return DataField{}, fmt.Errorf("%w: field %q without \"id\"", ErrUnknownType, f.Name)
		}
		// Java takes the id before parsing the field's type.
		*counter++
		f.ID = *counter
	}
	t, err := parseTypeJSON(obj.Type, counter)
	if err != nil {
		return DataField{}, fmt.Errorf("field %q: %w", f.Name, err)
	}
	f.Type = t
	if obj.Description != nil {
		f.Description = *obj.Description
	}
	if obj.DefaultValue != nil {
		f.DefaultValue = *obj.DefaultValue
	}
	return f, nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
