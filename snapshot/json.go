package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonWriter renders JSON the way Jackson's DefaultPrettyPrinter does (the printer behind
// Paimon's JsonSerdeUtil.toJson): objects put each entry on its own line indented by two spaces
// per level with `"key" : value`; an empty object is `{ }`; arrays stay on one line as
// `[ a, b ]` (`[ ]` when empty) and do not add an indentation level; strings are escaped as
// Jackson does (short escapes for \b \t \n \f \r, \" and \\, \u00XX for other control
// characters, everything else verbatim).
type jsonWriter struct {
	buf     bytes.Buffer
	nesting int
	// per open container: number of values written so far and whether it is an object
	counts  []int
	objects []bool
}

func (w *jsonWriter) newline() {
	w.buf.WriteByte('\n')
	for i := 0; i < w.nesting; i++ {
		w.buf.WriteString("  ")
	}
}

// beginObject starts an object value.
func (w *jsonWriter) beginObject() {
	w.buf.WriteByte('{')
	w.nesting++
	w.counts = append(w.counts, 0)
	w.objects = append(w.objects, true)
}

func (w *jsonWriter) endObject() {
	n := w.pop()
	w.nesting--
	if n > 0 {
		w.newline()
	} else {
		w.buf.WriteByte(' ')
	}
	w.buf.WriteByte('}')
}

func (w *jsonWriter) beginArray() {
	w.buf.WriteByte('[')
	w.counts = append(w.counts, 0)
	w.objects = append(w.objects, false)
}

func (w *jsonWriter) endArray() {
	w.pop()
	w.buf.WriteString(" ]")
}

func (w *jsonWriter) pop() int {
	n := w.counts[len(w.counts)-1]
	w.counts = w.counts[:len(w.counts)-1]
	w.objects = w.objects[:len(w.objects)-1]
	return n
}

// key writes the separator before an object entry and the entry's key.
func (w *jsonWriter) key(k string) {
	i := len(w.counts) - 1
	if w.counts[i] > 0 {
		w.buf.WriteByte(',')
	}
	w.counts[i]++
	w.newline()
	w.str(k)
	w.buf.WriteString(" : ")
}

// elem writes the separator before an array element.
func (w *jsonWriter) elem() {
	i := len(w.counts) - 1
	if w.counts[i] > 0 {
		w.buf.WriteString(", ")
	} else {
		w.buf.WriteByte(' ')
	}
	w.counts[i]++
}

const hexDigits = "0123456789ABCDEF"

func (w *jsonWriter) str(s string) {
	w.buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			w.buf.WriteByte('\\')
			w.buf.WriteByte(c)
		case c == '\b':
			w.buf.WriteString(`\b`)
		case c == '\t':
			w.buf.WriteString(`\t`)
		case c == '\n':
			w.buf.WriteString(`\n`)
		case c == '\f':
			w.buf.WriteString(`\f`)
		case c == '\r':
			w.buf.WriteString(`\r`)
		case c < 0x20:
			w.buf.WriteString(`\u00`)
			w.buf.WriteByte(hexDigits[c>>4])
			w.buf.WriteByte(hexDigits[c&0xf])
		default:
			w.buf.WriteByte(c)
		}
	}
	w.buf.WriteByte('"')
}

func (w *jsonWriter) int(v int64) { w.buf.WriteString(strconv.FormatInt(v, 10)) }

// raw re-renders an arbitrary JSON value (as kept for unknown keys) in the same style. Number
// literals are kept verbatim.
func (w *jsonWriter) raw(v json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := w.rawValue(dec); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

func (w *jsonWriter) rawValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			w.beginObject()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, ok := k.(string)
				if !ok {
					return fmt.Errorf("object key %v is not a string", k)
				}
				w.key(ks)
				if err := w.rawValue(dec); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			w.endObject()
		case '[':
			w.beginArray()
			for dec.More() {
				w.elem()
				if err := w.rawValue(dec); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			w.endArray()
		default:
			return fmt.Errorf("unexpected %v", t)
		}
	case string:
		w.str(t)
	case json.Number:
		w.buf.WriteString(t.String())
	case bool:
		if t {
			w.buf.WriteString("true")
		} else {
			w.buf.WriteString("false")
		}
	case nil:
		w.buf.WriteString("null")
	}
	return nil
}

// rawField is one top-level key and its undecoded value.
type rawField struct {
	key   string
	value json.RawMessage
}

// readObject splits a JSON object into its fields, in order. Duplicate keys are kept; later
// ones win when interpreted (Jackson's default).
func readObject(data []byte) ([]rawField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("top-level value is not an object")
	}
	var out []rawField
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", k)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", ks, err)
		}
		out = append(out, rawField{key: ks, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return out, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// parseInt64 reads a JSON integer exactly (never through float64). Like Jackson, a string
// holding an integer is accepted too.
func parseInt64(v json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(v))
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return 0, err
		}
		s = str
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a 64-bit integer: %s", truncate(s))
	}
	return n, nil
}

func parseString(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("not a string: %s", truncate(string(v)))
	}
	return s, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
