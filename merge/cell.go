package merge

import (
	"bytes"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// cellState says where the value of a cell lives.
type cellState uint8

const (
	cNull   cellState = iota // SQL NULL
	cRef                     // the non-null value at row `row` of batch `b` (same column)
	cInt                     // computed integer in i (any integer class, widened)
	cFloat                   // computed float: float64 bits in i (float32 values are exact in float64)
	cDec                     // computed decimal128 (column scale): low bits in i, high bits in hi
	cBytes                   // computed string / binary in s (owned, never mutated)
	cBool                    // computed boolean in i (0 or 1)
	cNested                  // computed nested value (array, map): element 0 of arr, owned, never mutated
)

// cell is one field value of a row being merged, the Go counterpart of an
// Object slot in Java's GenericRow. Values taken unchanged from an input row
// are references (no copy, works for every type including nested ones);
// only arithmetic results are materialised. A cRef cell is never null: null
// inputs become cNull.
type cell struct {
	st  cellState
	row int32
	b   *batch
	i   int64
	hi  int64
	s   []byte
	arr arrow.Array // cNested: a one-element array of the column's type
}

func floatCell(f float64) cell { return cell{st: cFloat, i: int64(math.Float64bits(f))} }

func decCell(d decimal128.Num) cell { return cell{st: cDec, i: int64(d.LowBits()), hi: d.HighBits()} }

// setRef makes x a reference to row of b, or null when that value is null.
// It writes only the fields a reference uses (the hot path of partial-update
// and aggregation).
func (c *valueCol) setRef(x *cell, b *batch, row int32) {
	if b.vals[c.vc].isNull(int(row)) {
		x.st = cNull
		return
	}
	x.st, x.b, x.row = cRef, b, row
}

// valueCol describes one value column of the merger's input: where it is in
// the record, its storage class, and the table field it belongs to.
type valueCol struct {
	name     string
	field    int // index into Config.fields
	vc       int // index among value columns (batch.vals)
	in       int // column index in the input record
	cls      class
	dt       arrow.DataType
	nullable bool // Paimon nullability of the table field
	prec     int32
	scale    int32
}

// refCell returns the input value at (b, row) of the column as a cell.
func (c *valueCol) refCell(b *batch, row int) cell {
	if b.vals[c.vc].isNull(row) {
		return cell{}
	}
	return cell{st: cRef, b: b, row: int32(row)}
}

func (c *valueCol) view(x *cell) *colView { return &x.b.vals[c.vc] }

func (c *valueCol) intOf(x *cell) int64 {
	if x.st == cRef {
		return c.view(x).intAt(int(x.row))
	}
	return x.i
}

func (c *valueCol) floatOf(x *cell) float64 {
	if x.st == cRef {
		return c.view(x).floatAt(int(x.row))
	}
	return math.Float64frombits(uint64(x.i))
}

func (c *valueCol) decOf(x *cell) decimal128.Num {
	if x.st == cRef {
		return c.view(x).dec[x.row]
	}
	return decimal128.New(x.hi, uint64(x.i))
}

func (c *valueCol) bytesOf(x *cell) []byte {
	if x.st == cRef {
		return c.view(x).bytesAt(int(x.row))
	}
	return x.s
}

func (c *valueCol) boolOf(x *cell) bool {
	if x.st == cRef {
		return c.view(x).b.Value(int(x.row))
	}
	return x.i != 0
}

// compare orders two non-null cells of this column (Java semantics, see
// compareAt).
func (c *valueCol) compare(x, y *cell) int {
	if x.st == cRef && y.st == cRef {
		return compareAt(c.cls, c.view(x), int(x.row), c.view(y), int(y.row))
	}
	switch {
	case c.cls.isInt():
		return cmpOrdered(c.intOf(x), c.intOf(y))
	case c.cls == clsF32 || c.cls == clsF64:
		return javaCompareFloat(c.floatOf(x), c.floatOf(y))
	case c.cls == clsDec128:
		return c.decOf(x).Cmp(c.decOf(y))
	case c.cls == clsBool:
		return cmpBool(c.boolOf(x), c.boolOf(y))
	case c.cls == clsBytes || c.cls == clsLBytes || c.cls == clsFixed:
		return bytes.Compare(c.bytesOf(x), c.bytesOf(y))
	}
	return 0
}

// compareNullable orders two cells with nulls first.
func (c *valueCol) compareNullable(x, y *cell) int {
	xn, yn := x.st == cNull, y.st == cNull
	switch {
	case xn && yn:
		return 0
	case xn:
		return -1
	case yn:
		return 1
	}
	return c.compare(x, y)
}

// vIsNull reports whether the record's value in this column is null.
func (c *valueCol) vIsNull(e entry) bool { return e.b.vals[c.vc].isNull(int(e.row)) }
