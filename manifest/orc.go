package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/orc"
)

// decodeORC decodes a manifest stored as ORC (tables with manifest.format=orc, Paimon ≤ 2.0):
// the rows are read as Arrow records by package format/orc and converted by fromArrow, which
// matches columns by the same names as the Avro fields.
func decodeORC[T any](data []byte, fromArrow arrowConverter[T]) ([]T, error) {
	f, err := orc.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, orcErr(err)
	}
	size := recordCost[T]()
	budget := DecodeBudget(len(data))
	out := make([]T, 0, min(f.NumRows(), maxPrealloc, budget/size))
	for rec, err := range f.Records(context.Background(), nil, 0) {
		if err != nil {
			return nil, orcErr(err)
		}
		if (int64(len(out))+rec.NumRows())*size > budget {
			rec.Release()
			return nil, fmt.Errorf("%w: ORC: more than %d rows", ErrTooLarge, budget/size)
		}
		rows, err := fromArrow(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func orcErr(err error) error {
	if errors.Is(err, format.ErrTooLarge) {
		return fmt.Errorf("%w: ORC: %w", ErrTooLarge, err)
	}
	if errors.Is(err, orc.ErrUnsupportedFormat) {
		return fmt.Errorf("%w: ORC: %w", ErrUnsupportedFormat, err)
	}
	return fmt.Errorf("ORC: %w", err)
}
