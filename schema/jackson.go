package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// PrettyJSON re-indents compact JSON the way Jackson's DefaultPrettyPrinter
// does, which is how Java Paimon writes schema, snapshot and tag files:
//
//   - objects: "{", then each entry on its own line indented by two spaces
//     per object nesting level as `"key" : value`, entries separated by ",",
//     then a newline and "}" at the parent's indent; an empty object is "{ }";
//   - arrays stay on one line: "[ a, b ]", an empty array is "[ ]"; arrays do
//     not add indentation, so objects inside arrays print "[ {" ... "}, {" ... "} ]";
//   - strings are re-escaped as Jackson does (see types.AppendJSONString);
//     numbers, true, false and null are copied verbatim.
//
// There is no trailing newline. Invalid JSON returns an error.
func PrettyJSON(compact []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(compact))
	dec.UseNumber()
	var out bytes.Buffer
	if err := prettyValue(dec, &out, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return out.Bytes(), nil
}

func prettyValue(dec *json.Decoder, out *bytes.Buffer, level int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	return prettyToken(dec, out, tok, level)
}

func prettyToken(dec *json.Decoder, out *bytes.Buffer, tok json.Token, level int) error {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := 0
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, ok := kt.(string)
				if !ok {
					return fmt.Errorf("object key expected, got %v", kt)
				}
				if n == 0 {
					out.WriteByte('{')
				} else {
					out.WriteByte(',')
				}
				out.WriteByte('\n')
				out.WriteString(strings.Repeat("  ", level+1))
				types.AppendJSONString(out, key)
				out.WriteString(" : ")
				if err := prettyValue(dec, out, level+1); err != nil {
					return err
				}
				n++
			}
			if _, err := dec.Token(); err != nil { // '}'
				return err
			}
			if n == 0 {
				out.WriteString("{ }")
			} else {
				out.WriteByte('\n')
				out.WriteString(strings.Repeat("  ", level))
				out.WriteByte('}')
			}
		case '[':
			out.WriteString("[ ")
			n := 0
			for dec.More() {
				if n > 0 {
					out.WriteString(", ")
				}
				if err := prettyValue(dec, out, level); err != nil {
					return err
				}
				n++
			}
			if _, err := dec.Token(); err != nil { // ']'
				return err
			}
			if n == 0 {
				out.WriteString("]")
			} else {
				out.WriteString(" ]")
			}
		default:
			return fmt.Errorf("unexpected delimiter %v", v)
		}
	case string:
		types.AppendJSONString(out, v)
	case json.Number:
		out.WriteString(v.String())
	case bool:
		if v {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("unexpected JSON token %v", tok)
	}
	return nil
}
