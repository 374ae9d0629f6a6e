package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/types"
)

// paimonType returns the Paimon type a primitive Arrow column decoded from
// a file stands for, so that a leaf nested in ROW/ARRAY/MAP whose type
// changed can be cast with cast.Array (top-level columns are cast by
// reader.ReadDataFile, which knows the file's schema). Lengths are not in
// the Arrow type: strings are STRING and binaries BYTES. ok is false for
// types no Paimon type maps to.
func paimonType(t arrow.DataType) (types.DataType, bool) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return types.Boolean(), true
	case *arrow.Int8Type:
		return types.TinyInt(), true
	case *arrow.Int16Type:
		return types.SmallInt(), true
	case *arrow.Int32Type:
		return types.Int(), true
	case *arrow.Int64Type:
		return types.BigInt(), true
	case *arrow.Float32Type:
		return types.Float(), true
	case *arrow.Float64Type:
		return types.Double(), true
	case *arrow.StringType:
		return types.String(), true
	case *arrow.BinaryType:
		return types.Bytes(), true
	case *arrow.Decimal128Type:
		return types.DecimalOf(int(t.Precision), int(t.Scale)), true
	case *arrow.Date32Type:
		return types.Date(), true
	case *arrow.Time32Type:
		if t.Unit == arrow.Millisecond {
			return types.TimeOf(0), true // the default TIME precision; the file's is not known here
		}
	case *arrow.TimestampType:
		p := map[arrow.TimeUnit]int{arrow.Second: 0, arrow.Millisecond: 3, arrow.Microsecond: 6, arrow.Nanosecond: 9}[t.Unit]
		if t.TimeZone != "" {
			return types.LocalZonedTimestampOf(p), true
		}
		return types.TimestampOf(p), true
	}
	return types.DataType{}, false
}
