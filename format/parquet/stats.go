package parquet

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// chunkStats converts the footer statistics of one column chunk to a
// format.ColumnStats in the Go representation of want, the way Java's
// ParquetSimpleStatsExtractor.toFieldStats does: INT96 timestamps and
// values that cannot be brought to want exactly have unknown min/max; a
// missing statistics block is entirely unknown.
func chunkStats(cc *metadata.ColumnChunkMetaData, descr *schema.Column, want types.DataType) format.ColumnStats {
	var out format.ColumnStats
	set, err := cc.StatsSet()
	if err != nil || !set {
		return out
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return out
	}
	if st.HasNullCount() {
		out.NullCount, out.NullCountKnown = st.NullCount(), true
	}
	if !st.HasMinMax() {
		return out
	}
	var lo, hi any
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.Int32Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.Int64Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.Float32Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.Float64Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.ByteArrayStatistics:
		lo, hi = []byte(s.Min()), []byte(s.Max())
	case *metadata.FixedLenByteArrayStatistics:
		lo, hi = []byte(s.Min()), []byte(s.Max())
	default: // INT96 and anything newer: order undefined
		return out
	}
	min, ok1 := statValue(descr, lo, want)
	max, ok2 := statValue(descr, hi, want)
	if ok1 && ok2 {
		out.Min, out.Max = min, max
	}
	return out
}

// statValue converts one raw footer statistic (bool, int32, int64, float32,
// float64 or []byte, as typed by the column's physical type) to the Go value
// of want. ok is false when the conversion is not exact or not defined.
func statValue(descr *schema.Column, v any, want types.DataType) (any, bool) {
	lt := descr.LogicalType()
	if it, isInt := lt.(schema.IntLogicalType); isInt && !it.IsSigned() {
		return nil, false // unsigned order differs from Paimon's
	}
	switch want.Kind {
	case types.KindBoolean:
		b, ok := v.(bool)
		return b, ok
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		switch lt.(type) {
		case schema.DecimalLogicalType, schema.DateLogicalType, schema.TimeLogicalType, schema.TimestampLogicalType:
			return nil, false
		}
		n, ok := types.AsInt64(v)
		if !ok {
			return nil, false
		}
		return narrowInt(n, want.Kind)
	case types.KindFloat:
		f, ok := v.(float32)
		return f, ok
	case types.KindDouble:
		switch f := v.(type) {
		case float32:
			return float64(f), true
		case float64:
			return f, true
		}
		return nil, false
	case types.KindDate:
		if _, ok := lt.(schema.DateLogicalType); !ok {
			return nil, false
		}
		n, ok := v.(int32)
		return n, ok
	case types.KindTime:
		tl, ok := lt.(schema.TimeLogicalType)
		if !ok {
			return nil, false
		}
		switch tl.TimeUnit() {
		case schema.TimeUnitMillis:
			n, ok := v.(int32)
			return n, ok
		case schema.TimeUnitMicros:
			if n, ok := v.(int64); ok && n%1000 == 0 {
				return int32(n / 1000), true
			}
		}
		return nil, false
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		tl, ok := lt.(schema.TimestampLogicalType)
		if !ok {
			return nil, false
		}
		n, ok := v.(int64)
		if !ok {
			return nil, false
		}
		var ts types.Timestamp
		switch tl.TimeUnit() {
		case schema.TimeUnitMillis:
			ts = types.Timestamp{Millis: n}
		case schema.TimeUnitMicros:
			ts = types.Timestamp{Millis: floorDiv(n, 1000), NanoOfMilli: int32(floorMod(n, 1000) * 1000)}
		case schema.TimeUnitNanos:
			ts = types.Timestamp{Millis: floorDiv(n, 1e6), NanoOfMilli: int32(floorMod(n, 1e6))}
		default:
			return nil, false
		}
		return ts, true
	case types.KindDecimal:
		dl, ok := lt.(schema.DecimalLogicalType)
		if !ok || int(dl.Scale()) != want.Scale || int(dl.Precision()) > want.Precision {
			return nil, false
		}
		var u *big.Int
		switch x := v.(type) {
		case int32:
			u = big.NewInt(int64(x))
		case int64:
			u = big.NewInt(x)
		case []byte:
			u = bigFromTwosComplement(x)
		default:
			return nil, false
		}
		return types.Decimal{Unscaled: u, Precision: want.Precision, Scale: want.Scale}, true
	case types.KindChar, types.KindVarChar:
		b, ok := v.([]byte)
		if !ok || descr.PhysicalType() != parquet.Types.ByteArray {
			return nil, false
		}
		return string(b), true
	case types.KindBinary, types.KindVarBinary:
		b, ok := v.([]byte)
		if _, isDecimal := lt.(schema.DecimalLogicalType); !ok || isDecimal {
			return nil, false
		}
		return append([]byte(nil), b...), true
	}
	return nil, false
}

func narrowInt(n int64, k types.Kind) (any, bool) {
	switch k {
	case types.KindTinyInt:
		if n >= math.MinInt8 && n <= math.MaxInt8 {
			return int8(n), true
		}
	case types.KindSmallInt:
		if n >= math.MinInt16 && n <= math.MaxInt16 {
			return int16(n), true
		}
	case types.KindInt:
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int32(n), true
		}
	case types.KindBigInt:
		return n, true
	}
	return nil, false
}

// bigFromTwosComplement decodes a big-endian two's complement integer (the
// unscaled value of a FIXED_LEN_BYTE_ARRAY/BINARY decimal).
func bigFromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 {
	return a - floorDiv(a, b)*b
}
