package types_test

import (
	"testing"

	"github.com/paimon-go/paimon/types"
)

// TestSupportsCast checks rows of Java's DataTypeCasts table
// (supportsCast(from, to, allowExplicit)).
func TestSupportsCast(t *testing.T) {
	for _, tc := range []struct {
		from, to           types.DataType
		implicit, explicit bool
	}{
		{types.Int(), types.BigInt(), true, true},
		{types.BigInt(), types.Int(), false, true},
		{types.BigInt(), types.Float(), true, true},         // FLOAT implicit from BIGINT
		{types.DecimalOf(38, 0), types.Float(), true, true}, // and from DECIMAL
		{types.Double(), types.Float(), false, true},
		{types.Int(), types.String(), false, true},
		{types.CharOf(3), types.VarCharOf(1), true, true}, // lengths are not compared
		{types.VarCharOf(3), types.CharOf(10), false, true},
		{types.Bytes(), types.BinaryOf(4), false, true},
		{types.Date(), types.Int(), false, false},
		{types.TimestampOf(3), types.Date(), true, true},
		{types.Date(), types.TimestampOf(3), false, true},
		{types.TimeOf(0), types.Date(), false, false},
		{types.Boolean(), types.Date(), false, false},
		{types.ArrayOf(types.Int()), types.String(), false, true},
		{types.ArrayOf(types.Int()), types.ArrayOf(types.String()), true, true}, // same root
		{types.String(), types.ArrayOf(types.Int()), false, false},
		{types.Int(), types.Int().NotNull(), false, true}, // nullable to NOT NULL needs explicit
		{types.Int().NotNull(), types.Int(), true, true},
	} {
		if got := types.SupportsCast(tc.from, tc.to, false); got != tc.implicit {
			t.Errorf("SupportsCast(%s, %s, false) = %t", tc.from, tc.to, got)
		}
		if got := types.SupportsCast(tc.from, tc.to, true); got != tc.explicit {
			t.Errorf("SupportsCast(%s, %s, true) = %t", tc.from, tc.to, got)
		}
	}
}
