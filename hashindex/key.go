package hashindex

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// KeyHash returns the hash of row i of the key columns cols, whose types
// are keyTypes (the trimmed primary key): Java's
// BinaryRow.hashCode of the trimmed primary key row, the hash dynamic-bucket
// mode assigns buckets by and records in index files.
func KeyHash(cols []arrow.Array, keyTypes []types.DataType, i int, vals []any) (int32, error) {
	for k, c := range cols {
		v, err := types.ArrowView(keyTypes[k], c, i)
		if err != nil {
			return 0, err
		}
		vals[k] = v
	}
	br, err := row.Encode(keyTypes, vals)
	if err != nil {
		return 0, fmt.Errorf("hashindex: key of row %d: %w", i, err)
	}
	return row.HashCode(br), nil
}
