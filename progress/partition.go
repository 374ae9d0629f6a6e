package progress

import (
	"fmt"

	"github.com/paimon-go/paimon/row"
)

// PartitionOf returns the partition of a PartitionBucket for the partition
// values (Go values of the partition fields' types, in pc.Fields order; nil
// for NULL): field name to pc.ValueString, the unescaped logical string
// Paimon puts in partition paths (paimon-cpp
// BinaryRowPartitionComputer::GeneratePartitionVector). pc must be the
// table's: partition.legacy-name decides, e.g., whether a DATE renders as
// its epoch day "19723" (true, the default) or as "2024-01-01" (false), and
// partition.default-name is the string of NULL. An unpartitioned table
// gives an empty map. Errors wrap ErrInvalidPartition for a count or Go
// type that does not fit the fields.
func PartitionOf(pc row.PartitionComputer, values []any) (map[string]string, error) {
	if len(values) != len(pc.Fields) {
		return nil, fmt.Errorf("%w: %d values for %d partition fields", ErrInvalidPartition, len(values), len(pc.Fields))
	}
	out := make(map[string]string, len(values))
	for i, f := range pc.Fields {
		s, err := pc.ValueString(f.Type, values[i])
		if err != nil {
			return nil, fmt.Errorf("%w: field %s: %w", ErrInvalidPartition, f.Name, err)
		}
		out[f.Name] = s
	}
	return out, nil
}
