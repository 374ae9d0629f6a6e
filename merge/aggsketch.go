package merge

import (
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/internal/hll"
	"github.com/paimon-go/paimon/internal/rbm"
	"github.com/paimon-go/paimon/internal/theta"
)

// sketchAgg is one of the aggregate functions whose values are opaque
// serializations merged by a union: rbm64 (FieldRoaringBitmap64Agg, Java's
// Roaring64Bitmap serialization, internal/rbm), theta_sketch
// (FieldThetaSketchAgg, internal/theta) and hll_sketch (FieldHllSketchAgg,
// internal/hll; a corrupt sketch is ErrCorruptValue naming the column).
// Nulls pass through as in every FieldAggregator.
type sketchAgg struct {
	col   *valueCol
	name  string
	union func(acc, in []byte) ([]byte, error)
}

func newSketchAgg(spec aggSpec, col *valueCol) (fieldAgg, error) {
	if col.cls != clsBytes && col.cls != clsLBytes {
		return nil, fmt.Errorf("%w: column %q has Arrow type %s, which does not fit aggregate function %s",
			ErrSchema, col.name, col.dt, spec.name)
	}
	a := &sketchAgg{col: col, name: spec.name}
	switch spec.name {
	case aggRbm64:
		a.union = rbm.Union64
	case aggThetaSketch:
		a.union = theta.Union
	case aggHllSketch:
		a.union = hll.Union
	default:
		return nil, fmt.Errorf("%w: aggregate function %q", ErrUnsupported, spec.name)
	}
	return a, nil
}

func (a *sketchAgg) reset() {}

func (a *sketchAgg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	out, err := a.union(a.col.bytesOf(acc), a.col.bytesOf(in))
	if err != nil {
		sentinel := ErrCorruptValue
		if errors.Is(err, theta.ErrUnsupported) {
			sentinel = ErrUnsupported
		}
		return fmt.Errorf("%w: %s of field %q: %v", sentinel, a.name, a.col.name, err)
	}
	*acc = cell{st: cBytes, s: out}
	return nil
}

func (a *sketchAgg) retract(acc, in *cell) error { return retractUnsupported(a.col, a.name) }
