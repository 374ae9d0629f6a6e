package rowfmt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/types"
)

// tableBuffer collects the cells of the Table format until render.
type tableBuffer struct {
	header   []string
	numeric  []bool // right-align
	rows     [][]string
	maxWidth int
	buf      []byte
}

func newTableBuffer(s *arrow.Schema, maxWidth int) *tableBuffer {
	t := &tableBuffer{maxWidth: maxWidth}
	for _, f := range s.Fields() {
		t.header = append(t.header, t.cell(f.Name))
		t.numeric = append(t.numeric, isNumeric(f.Type))
	}
	return t
}

// isNumeric reports whether values of at are numbers (right-aligned).
func isNumeric(at arrow.DataType) bool {
	if d, ok := at.(*arrow.DictionaryType); ok {
		at = d.ValueType
	}
	switch at.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

func (t *tableBuffer) add(rec arrow.RecordBatch, colTypes []*types.DataType) error {
	cols := rec.Columns()
	for r := range int(rec.NumRows()) {
		row := make([]string, len(cols))
		for c, col := range cols {
			if col.IsNull(r) {
				row[c] = "NULL"
				continue
			}
			var err error
			if t.buf, err = appendText(t.buf[:0], col, r, colTypes[c]); err != nil {
				return fmt.Errorf("column %s row %d: %w", rec.ColumnName(c), r, err)
			}
			row[c] = t.cell(string(t.buf))
		}
		t.rows = append(t.rows, row)
	}
	return nil
}

// cell escapes control characters (as Go escapes: \n, \t, \x1b) and cuts s
// to maxWidth runes, ending a cut cell with "…".
func (t *tableBuffer) cell(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	s = b.String()
	if utf8.RuneCountInString(s) <= t.maxWidth {
		return s
	}
	n := 0
	for i := range s {
		if n == t.maxWidth-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// render writes the header, a rule, the rows and the row count; numeric
// columns (header included) are right-aligned.
func (t *tableBuffer) render(out io.Writer) error {
	widths := make([]int, len(t.header))
	for c, h := range t.header {
		widths[c] = utf8.RuneCountInString(h)
	}
	for _, row := range t.rows {
		for c, v := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(v))
		}
	}
	w := bufio.NewWriter(out)
	line := func(cells []string) {
		for c, v := range cells {
			if c > 0 {
				w.WriteString(" | ")
			}
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(v))
			last := c == len(cells)-1
			switch {
			case t.numeric[c]:
				w.WriteString(pad)
				w.WriteString(v)
			case last:
				w.WriteString(v) // no trailing spaces
			default:
				w.WriteString(v)
				w.WriteString(pad)
			}
		}
		w.WriteByte('\n')
	}
	line(t.header)
	for c := range widths {
		if c > 0 {
			w.WriteString("-+-")
		}
		w.WriteString(strings.Repeat("-", widths[c]))
	}
	w.WriteByte('\n')
	for _, row := range t.rows {
		line(row)
	}
	if len(t.rows) == 1 {
		w.WriteString("(1 row)\n")
	} else {
		fmt.Fprintf(w, "(%d rows)\n", len(t.rows))
	}
	return w.Flush()
}
