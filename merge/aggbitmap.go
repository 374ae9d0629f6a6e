package merge

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
)

// rbm32Agg is FieldRoaringBitmap32Agg: the union of two VARBINARY values
// holding RoaringBitmap portable serializations, run-optimized and
// serialized again as Java's RoaringBitmap32.serialize writes it.
type rbm32Agg struct{ col *valueCol }

func (a *rbm32Agg) reset() {}

func (a *rbm32Agg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	x, err := a.bitmap(acc)
	if err != nil {
		return err
	}
	y, err := a.bitmap(in)
	if err != nil {
		return err
	}
	x.Or(y)
	x.RunOptimize()
	out, err := x.ToBytes()
	if err != nil {
		return fmt.Errorf("%w: rbm32 of field %q: serializing: %v", ErrCorruptValue, a.col.name, err)
	}
	*acc = cell{st: cBytes, s: out}
	return nil
}

func (a *rbm32Agg) bitmap(x *cell) (*roaring.Bitmap, error) {
	b := roaring.New()
	if err := b.UnmarshalBinary(a.col.bytesOf(x)); err != nil {
		return nil, fmt.Errorf("%w: rbm32 of field %q: unable to deserialize roaring bitmap: %v", ErrCorruptValue, a.col.name, err)
	}
	return b, nil
}

func (a *rbm32Agg) retract(acc, in *cell) error { return retractUnsupported(a.col, aggRbm32) }
