package merge

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// class is the physical storage of an Arrow column as this package handles
// it: how values are read, compared and copied.
type class uint8

const (
	clsOther  class = iota // nested or exotic types: only copied, never compared
	clsBool                // bit-packed booleans
	clsI8                  // int8
	clsI16                 // int16
	clsI32                 // int32, date32, time32
	clsI64                 // int64, timestamp, time64, date64, duration
	clsF32                 // float32
	clsF64                 // float64
	clsBytes               // utf8 / binary with int32 offsets
	clsLBytes              // large utf8 / large binary with int64 offsets
	clsFixed               // fixed-size binary
	clsDec128              // decimal128
)

// classOf maps an Arrow type to its storage class.
func classOf(dt arrow.DataType) class {
	switch dt.ID() {
	case arrow.BOOL:
		return clsBool
	case arrow.INT8:
		return clsI8
	case arrow.INT16:
		return clsI16
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return clsI32
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64, arrow.DATE64, arrow.DURATION:
		return clsI64
	case arrow.FLOAT32:
		return clsF32
	case arrow.FLOAT64:
		return clsF64
	case arrow.STRING, arrow.BINARY:
		return clsBytes
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return clsLBytes
	case arrow.FIXED_SIZE_BINARY:
		return clsFixed
	case arrow.DECIMAL128:
		return clsDec128
	}
	return clsOther
}

// comparable reports whether values of the class can be ordered.
func (c class) comparable() bool { return c != clsOther }

// isInt reports integer storage (signed 8..64 bit).
func (c class) isInt() bool { return c >= clsI8 && c <= clsI64 }

// colView is one column of one record batch, unpacked into typed slices so
// the hot loops read values without interface calls. Slices are already
// adjusted for the array offset: element i is row i of the batch.
type colView struct {
	cls   class
	arr   arrow.Array
	nulls bool   // the column has at least one null
	valid []byte // validity bitmap when nulls
	voff  int    // bit offset of row 0 in valid

	b     *array.Boolean
	i8    []int8
	i16   []int16
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	offs  []int32
	loffs []int64
	data  []byte
	width int
	dec   []decimal128.Num
}

func fixedValues[T arrow.FixedWidthType](d arrow.ArrayData, width int) ([]T, error) {
	n, off := d.Len(), d.Offset()
	if n == 0 {
		return nil, nil
	}
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < (off+n)*width {
		return nil, fmt.Errorf("%w: value buffer shorter than %d rows", ErrSchema, off+n)
	}
	raw := bufs[1].Bytes()
	return arrow.GetData[T](raw[:len(raw)/width*width])[off : off+n], nil
}

// load unpacks arr. Buffers too short for the array length are reported as
// ErrSchema instead of panicking later.
func (v *colView) load(cls class, arr arrow.Array) error {
	*v = colView{cls: cls, arr: arr, nulls: arr.NullN() > 0}
	d := arr.Data()
	if v.nulls {
		bufs := d.Buffers()
		if len(bufs) == 0 || bufs[0] == nil || bufs[0].Len()*8 < d.Offset()+d.Len() {
			return fmt.Errorf("%w: validity bitmap shorter than %d rows", ErrSchema, d.Offset()+d.Len())
		}
		v.valid, v.voff = bufs[0].Bytes(), d.Offset()
	}
	var err error
	switch cls {
	case clsBool:
		b, ok := arr.(*array.Boolean)
		if !ok {
			return fmt.Errorf("%w: boolean column is %T", ErrSchema, arr)
		}
		v.b = b
	case clsI8:
		v.i8, err = fixedValues[int8](d, 1)
	case clsI16:
		v.i16, err = fixedValues[int16](d, 2)
	case clsI32:
		v.i32, err = fixedValues[int32](d, 4)
	case clsI64:
		v.i64, err = fixedValues[int64](d, 8)
	case clsF32:
		v.f32, err = fixedValues[float32](d, 4)
	case clsF64:
		v.f64, err = fixedValues[float64](d, 8)
	case clsDec128:
		v.dec, err = fixedValues[decimal128.Num](d, 16)
	case clsBytes, clsLBytes:
		n, off := d.Len(), d.Offset()
		bufs := d.Buffers()
		w := 4
		if cls == clsLBytes {
			w = 8
		}
		if len(bufs) < 3 || bufs[1] == nil || bufs[1].Len() < (off+n+1)*w {
			if n == 0 {
				return nil
			}
			return fmt.Errorf("%w: offsets buffer shorter than %d rows", ErrSchema, off+n)
		}
		if bufs[2] != nil {
			v.data = bufs[2].Bytes()
		}
		raw := bufs[1].Bytes()
		var first, last int64
		if cls == clsBytes {
			v.offs = arrow.GetData[int32](raw[:len(raw)/4*4])[off : off+n+1]
			first, last = int64(v.offs[0]), int64(v.offs[n])
		} else {
			v.loffs = arrow.GetData[int64](raw[:len(raw)/8*8])[off : off+n+1]
			first, last = v.loffs[0], v.loffs[n]
		}
		if first < 0 || last < first || last > int64(len(v.data)) {
			return fmt.Errorf("%w: offsets [%d, %d] outside data buffer of %d bytes", ErrSchema, first, last, len(v.data))
		}
	case clsFixed:
		v.width = arr.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		n, off := d.Len(), d.Offset()
		bufs := d.Buffers()
		if n > 0 {
			if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < (off+n)*v.width {
				return fmt.Errorf("%w: value buffer shorter than %d rows", ErrSchema, off+n)
			}
			v.data = bufs[1].Bytes()[off*v.width : (off+n)*v.width]
		}
	}
	return err
}

func (v *colView) isNull(i int) bool { return v.nulls && !bitutil.BitIsSet(v.valid, v.voff+i) }

// bytesAt returns the bytes of row i (clsBytes, clsLBytes, clsFixed).
func (v *colView) bytesAt(i int) []byte {
	switch v.cls {
	case clsBytes:
		return v.data[v.offs[i]:v.offs[i+1]]
	case clsLBytes:
		return v.data[v.loffs[i]:v.loffs[i+1]]
	default:
		return v.data[i*v.width : (i+1)*v.width]
	}
}

// intAt returns row i of an integer class widened to int64.
func (v *colView) intAt(i int) int64 {
	switch v.cls {
	case clsI8:
		return int64(v.i8[i])
	case clsI16:
		return int64(v.i16[i])
	case clsI32:
		return int64(v.i32[i])
	default:
		return v.i64[i]
	}
}

// floatAt returns row i of a float class widened to float64 (exact).
func (v *colView) floatAt(i int) float64 {
	if v.cls == clsF32 {
		return float64(v.f32[i])
	}
	return v.f64[i]
}

// compareAt orders the non-null values a[i] and b[j] of the same class as
// Java does: integers and temporals numerically, floats by Float.compare /
// Double.compare (-0.0 < 0.0, NaN greatest), booleans false < true, strings
// and binaries by unsigned bytes then length, decimals of one scale by their
// unscaled value.
func compareAt(cls class, a *colView, i int, b *colView, j int) int {
	switch cls {
	case clsI64:
		return cmpOrdered(a.i64[i], b.i64[j])
	case clsI32:
		return cmpOrdered(a.i32[i], b.i32[j])
	case clsI16:
		return cmpOrdered(a.i16[i], b.i16[j])
	case clsI8:
		return cmpOrdered(a.i8[i], b.i8[j])
	case clsBytes:
		return bytes.Compare(a.data[a.offs[i]:a.offs[i+1]], b.data[b.offs[j]:b.offs[j+1]])
	case clsLBytes, clsFixed:
		return bytes.Compare(a.bytesAt(i), b.bytesAt(j))
	case clsF64:
		return javaCompareFloat(a.f64[i], b.f64[j])
	case clsF32:
		return javaCompareFloat(float64(a.f32[i]), float64(b.f32[j]))
	case clsBool:
		return cmpBool(a.b.Value(i), b.b.Value(j))
	case clsDec128:
		return a.dec[i].Cmp(b.dec[j])
	}
	return 0
}

// compareNullable is compareAt with Java's nulls-first rule (null < non-null,
// two nulls equal). It does not apply any sort direction.
func compareNullable(cls class, a *colView, i int, b *colView, j int) int {
	an, bn := a.isNull(i), b.isNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return compareAt(cls, a, i, b, j)
}

type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64
}

func cmpOrdered[T ordered](x, y T) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	return 0
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

// javaCompareFloat is Java's Double.compare; float32 values widened to
// float64 keep their order, sign of zero and NaN-ness, so it also serves as
// Float.compare.
func javaCompareFloat(x, y float64) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	xb, yb := javaDoubleBits(x), javaDoubleBits(y)
	switch {
	case xb == yb:
		return 0
	case xb < yb:
		return -1
	}
	return 1
}

// javaDoubleBits is Double.doubleToLongBits: IEEE bits with NaN canonicalised.
func javaDoubleBits(x float64) int64 {
	if math.IsNaN(x) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(x))
}
