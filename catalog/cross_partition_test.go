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

func TestFirstRowRejectsDeletionVectors(t *testing.T) {
	fields := []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.String())}
	opts := map[string]string{"bucket": "1", "merge-engine": "first-row", "deletion-vectors.enabled": "true"}
	if _, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: opts}, 0); !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("first-row with deletion vectors: err = %v, want ErrInvalidSchema", err)
	}
	opts["deletion-vectors.enabled"] = "false"
	if _, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: opts}, 0); err != nil {
		t.Fatalf("first-row without deletion vectors: %v", err)
	}
}
