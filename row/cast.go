package row

import (
	"math/big"
	"time"

	"github.com/paimon-go/paimon/types"
)

// CastString is Java's CastExecutors.resolve(t, STRING).cast(v).toString()
// for the atomic types other than BINARY/VARBINARY: integers in decimal,
// FLOAT/DOUBLE as Float.toString/Double.toString, DECIMAL as
// BigDecimal.toPlainString, BOOLEAN as "true"/"false", DATE as yyyy-MM-dd,
// TIME and TIMESTAMP as DateTimeUtils.formatTimestampMillis/formatTimestamp
// at t's precision; TIMESTAMP WITH LOCAL TIME ZONE is rendered as the wall
// clock in zone. v is the Go value of t (types package convention); a
// value of another Go type is an error wrapping ErrUnsupported.
func CastString(t types.DataType, v any, zone *time.Location) (string, error) {
	return castString(t, v, zone)
}

// JavaDoubleString is Java's Double.toString (bitSize 64) or Float.toString
// (bitSize 32) of x, in the shortest-decimal form of JDK 19+.
func JavaDoubleString(x float64, bitSize int) string { return javaFloatString(x, bitSize) }

// PlainDecimalString is Java's BigDecimal.toPlainString of unscaled×10^-scale.
func PlainDecimalString(unscaled *big.Int, scale int) string {
	return plainDecimalString(unscaled, scale)
}
