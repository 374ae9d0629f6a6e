package catalog

import (
	"errors"
	"testing"

	"github.com/paimon-go/paimon/types"
)

func TestCrossPartitionNeedsDynamicBuckets(t *testing.T) {
	fields := []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "p", types.Int())}
	_, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id"}, PartitionKeys: []string{"p"},
		Options: map[string]string{"bucket": "1"}}, 0)
	if !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("fixed bucket: err = %v, want ErrInvalidSchema", err)
	}
	if _, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id", "p"}, PartitionKeys: []string{"p"},
		Options: map[string]string{"bucket": "1"}}, 0); err != nil {
		t.Fatalf("key includes the partition: %v", err)
	}
}
