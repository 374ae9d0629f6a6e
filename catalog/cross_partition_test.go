package catalog

import (
	"errors"
	"testing"

	"github.com/paimon-go/paimon/schema"
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

func TestMalformedOptionsRejectedAtCreate(t *testing.T) {
	fields := []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.String())}
	for _, kv := range [][2]string{
		{"num-sorted-run.compaction-trigger", "abc"},
		{"num-sorted-run.compaction-trigger", "0"},
		{"num-levels", "1"},
		{"deletion-vectors.enabled", "maybe"},
		{"merge-engine", "foo"},
		{"full-compaction.delta-commits", "0"},
		{"compaction.max-size-amplification-percent", "-5"},
		{"snapshot.num-retained.min", "-1"},
		{"snapshot.time-retained", "xyz"},
		{"realtime.enabled", "yes"},
		{"realtime.read-view-ttl", "banana"},
	} {
		opts := map[string]string{"bucket": "1", kv[0]: kv[1]}
		_, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: opts}, 0)
		if !errors.Is(err, ErrInvalidSchema) || !errors.Is(err, schema.ErrInvalidOption) {
			t.Errorf("%s = %s: err = %v, want ErrInvalidSchema and schema.ErrInvalidOption", kv[0], kv[1], err)
		}
	}
	opts := map[string]string{"bucket": "1", "snapshot.num-retained.min": "20", "snapshot.num-retained.max": "5"}
	if _, err := NewTableSchema(Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: opts}, 0); !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("min > max: err = %v, want schema.ErrInvalidOption", err)
	}
}
