package merge

import (
	"fmt"

	"github.com/paimon-go/paimon/internal/rbm"
)

// rbm32Agg is FieldRoaringBitmap32Agg: the union of two VARBINARY values
// holding RoaringBitmap portable serializations, written as Java's
// RoaringBitmap32 writes it after or and runOptimize (rbm.Union32: the
// container types Java's union chooses, so the bytes equal Java's).
type rbm32Agg struct{ col *valueCol }

func (a *rbm32Agg) reset() {}

func (a *rbm32Agg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	out, err := rbm.Union32(a.col.bytesOf(acc), a.col.bytesOf(in))
	if err != nil {
		return fmt.Errorf("%w: rbm32 of field %q: unable to deserialize roaring bitmap: %v", ErrCorruptValue, a.col.name, err)
	}
	*acc = cell{st: cBytes, s: out}
	return nil
}

func (a *rbm32Agg) retract(acc, in *cell) error { return retractUnsupported(a.col, aggRbm32) }
