package progress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/paimon-go/paimon/fileio"
)

// Version is the only offsets file version there is
// (RealtimeCommitProperties::kOffsetsVersion). Files of paimon-cpp's first
// real-time cut (#163) carry the same version but an inclusive last offset;
// they cannot be told apart and are read as exclusive ends
// (docs/realtime-design.md section 5, "Format history").
const Version = 1

// Encode renders o as the content of an offsets file, byte for byte as
// paimon-cpp writes it (RealtimeCommitProperties::SerializeOffsets: RapidJSON's
// pretty writer with a 4-space indent, no trailing newline):
//
//	{
//	    "version": 1,
//	    "offsets": [
//	        {
//	            "partition": {
//	                "dt": "2"
//	            },
//	            "bucket": 2,
//	            "offset": 9
//	        }
//	    ]
//	}
//
// with entries in PartitionBucket order, partition keys sorted, "partition":
// {} for an unpartitioned table and "offsets": [] for no entry. Strings are
// escaped as RapidJSON does (only '"', '\\' and control characters; no
// HTML or U+2028 escapes). Errors wrap ErrInvalidRange for a negative
// bucket or end, or a partition key or value that is not valid UTF-8.
func Encode(o Offsets) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n    \"version\": " + strconv.Itoa(Version) + ",\n    \"offsets\": [")
	for i, e := range o.entries {
		if e.Bucket < 0 {
			return nil, fmt.Errorf("%w: bucket %d of %s", ErrInvalidRange, e.Bucket, e.PartitionBucket)
		}
		if e.End < 0 {
			return nil, fmt.Errorf("%w: offset %d of %s", ErrInvalidRange, e.End, e.PartitionBucket)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n        {\n            \"partition\": {")
		for j, k := range slices.Sorted(maps.Keys(e.Partition)) {
			v := e.Partition[k]
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, fmt.Errorf("%w: partition %q=%q of bucket %d is not UTF-8", ErrInvalidRange, k, v, e.Bucket)
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n                ")
			writeString(&b, k)
			b.WriteString(": ")
			writeString(&b, v)
		}
		if len(e.Partition) > 0 {
			b.WriteString("\n            ")
		}
		b.WriteString("},\n            \"bucket\": " + strconv.Itoa(int(e.Bucket)) +
			",\n            \"offset\": " + strconv.FormatInt(e.End, 10) + "\n        }")
	}
	if len(o.entries) > 0 {
		b.WriteString("\n    ")
	}
	b.WriteString("]\n}")
	return b.Bytes(), nil
}

// writeString writes s as a JSON string the way RapidJSON's Writer does.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
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
	}
	b.WriteByte('"')
}

// Decode parses the content of an offsets file (paimon-cpp
// RealtimeCommitProperties::ParseOffsets), written by Encode or by
// paimon-cpp in any layout of whitespace. The top level must be an object
// with "version" (the integer 1) and "offsets" (an array of objects, each
// with "partition", an object of strings, "bucket", an int32 >= 0, and
// "offset", an int64 >= 0); unknown keys are ignored, as RapidJSON does.
// Entries may come in any order; the result is in PartitionBucket order.
//
// Errors wrap ErrCorrupt and name what is wrong: bytes that are not UTF-8
// JSON, a missing key, a value of the wrong JSON type (numbers must be
// integer literals within range), another version, a negative bucket or
// offset, a duplicate partition-bucket, a key repeated within one object,
// or data after the top-level object.
//
// Data over MaxFileSize is refused with an error wrapping fileio.ErrTooLarge.
func Decode(data []byte) (Offsets, error) {
	if len(data) > MaxFileSize {
		return Offsets{}, fmt.Errorf("progress: offsets: %w: %d bytes, limit %d", fileio.ErrTooLarge, len(data), MaxFileSize)
	}
	if !utf8.Valid(data) {
		return Offsets{}, fmt.Errorf("%w: not UTF-8", ErrCorrupt)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	top, err := parseValue(d)
	if err != nil {
		return Offsets{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if _, err := d.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("another value")
		}
		return Offsets{}, fmt.Errorf("%w: data after the top-level object: %w", ErrCorrupt, err)
	}
	root, err := asObject(top, "the top level")
	if err != nil {
		return Offsets{}, err
	}
	version, err := intKey(root, "version", "the top level", 32)
	if err != nil {
		return Offsets{}, err
	}
	if version != Version {
		return Offsets{}, fmt.Errorf("%w: unsupported offsets version %d", ErrCorrupt, version)
	}
	raw, ok := root["offsets"]
	if !ok {
		return Offsets{}, fmt.Errorf("%w: key \"offsets\" missing", ErrCorrupt)
	}
	list, ok := raw.([]any)
	if !ok {
		return Offsets{}, fmt.Errorf("%w: \"offsets\" must be an array, got %s", ErrCorrupt, jsonType(raw))
	}
	entries := make([]Entry, 0, len(list))
	for i, item := range list {
		where := fmt.Sprintf("offsets[%d]", i)
		obj, err := asObject(item, where)
		if err != nil {
			return Offsets{}, err
		}
		praw, ok := obj["partition"]
		if !ok {
			return Offsets{}, fmt.Errorf("%w: key \"partition\" missing in %s", ErrCorrupt, where)
		}
		pobj, err := asObject(praw, where+".partition")
		if err != nil {
			return Offsets{}, err
		}
		partition := make(map[string]string, len(pobj))
		for k, v := range pobj {
			s, ok := v.(string)
			if !ok {
				return Offsets{}, fmt.Errorf("%w: %s.partition[%q] must be a string, got %s", ErrCorrupt, where, k, jsonType(v))
			}
			partition[k] = s
		}
		bucket, err := intKey(obj, "bucket", where, 32)
		if err != nil {
			return Offsets{}, err
		}
		offset, err := intKey(obj, "offset", where, 64)
		if err != nil {
			return Offsets{}, err
		}
		if bucket < 0 {
			return Offsets{}, fmt.Errorf("%w: invalid bucket %d in %s", ErrCorrupt, bucket, where)
		}
		if offset < 0 {
			return Offsets{}, fmt.Errorf("%w: invalid offset %d in %s", ErrCorrupt, offset, where)
		}
		entries = append(entries, Entry{PartitionBucket: PartitionBucket{Partition: partition, Bucket: int32(bucket)}, End: offset})
	}
	slices.SortStableFunc(entries, func(a, b Entry) int { return a.PartitionBucket.Compare(b.PartitionBucket) })
	for i := 1; i < len(entries); i++ {
		if entries[i].PartitionBucket.Compare(entries[i-1].PartitionBucket) == 0 {
			return Offsets{}, fmt.Errorf("%w: duplicate partition-bucket %s", ErrCorrupt, entries[i].PartitionBucket)
		}
	}
	return Offsets{entries: entries}, nil
}

// object is a parsed JSON object.
type object map[string]any

// parseValue reads one JSON value from d: object, []any, string,
// json.Number, bool or nil. Repeated keys within an object are an error.
func parseValue(d *json.Decoder) (any, error) {
	tok, err := token(d)
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := object{}
			for d.More() {
				kt, err := token(d)
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				if _, dup := obj[k]; dup {
					return nil, fmt.Errorf("key %q repeated in one object", k)
				}
				v, err := parseValue(d)
				if err != nil {
					return nil, err
				}
				obj[k] = v
			}
			if _, err := token(d); err != nil { // '}'
				return nil, err
			}
			return obj, nil
		case '[':
			list := []any{}
			for d.More() {
				v, err := parseValue(d)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := token(d); err != nil { // ']'
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// token is d.Token inside a value, where the end of the input is an
// error.
func token(d *json.Decoder) (json.Token, error) {
	tok, err := d.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return tok, err
}

// asObject returns v as an object or an ErrCorrupt error naming where.
func asObject(v any, where string) (object, error) {
	obj, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("%w: %s must be an object, got %s", ErrCorrupt, where, jsonType(v))
	}
	return obj, nil
}

// intKey returns obj[key] as an integer of the given bit size.
func intKey(obj object, key, where string, bits int) (int64, error) {
	v, ok := obj[key]
	if !ok {
		return 0, fmt.Errorf("%w: key %q missing in %s", ErrCorrupt, key, where)
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%w: %q in %s must be an int%d, got %s", ErrCorrupt, key, where, bits, jsonType(v))
	}
	i, err := strconv.ParseInt(string(n), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%w: %q in %s must be an int%d, got %s", ErrCorrupt, key, where, bits, n)
	}
	return i, nil
}

// jsonType names the JSON type of a parsed value, for messages.
func jsonType(v any) string {
	switch v := v.(type) {
	case object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "the number " + string(v)
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
