package progress_test

import (
	"errors"
	"maps"
	"testing"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

func TestPartitionOf(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "dt", Type: types.Date()}, {ID: 1, Name: "region", Type: types.String()}}
	// 2024-01-01 is day 19723 since 1970-01-01 (54·365 + 13 leap days).
	values := []any{int32(19723), "eu"}
	for _, c := range []struct {
		legacy bool
		want   map[string]string
	}{
		{true, map[string]string{"dt": "19723", "region": "eu"}},
		{false, map[string]string{"dt": "2024-01-01", "region": "eu"}},
	} {
		got, err := progress.PartitionOf(row.PartitionComputer{Fields: fields, Legacy: c.legacy}, values)
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("legacy %v: PartitionOf = %v, %v; want %v", c.legacy, got, err, c.want)
		}
	}
	got, err := progress.PartitionOf(row.PartitionComputer{Fields: fields, DefaultName: "__NULL__"}, []any{nil, " "})
	if want := map[string]string{"dt": "__NULL__", "region": "__NULL__"}; err != nil || !maps.Equal(got, want) {
		t.Errorf("NULL values: PartitionOf = %v, %v; want %v", got, err, want)
	}
	if got, err := progress.PartitionOf(row.PartitionComputer{}, nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("unpartitioned: PartitionOf = %#v, %v; want an empty map", got, err)
	}
	for name, vals := range map[string][]any{"count": {int32(1)}, "type": {"2024-01-01", "eu"}} {
		if _, err := progress.PartitionOf(row.PartitionComputer{Fields: fields, Legacy: true}, vals); !errors.Is(err, progress.ErrInvalidPartition) {
			t.Errorf("bad %s: error %v, want ErrInvalidPartition", name, err)
		}
	}
}
