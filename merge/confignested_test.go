package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/types"
)

// TestNestedAggConfig checks the field type and option checks of the
// collection, bitmap and sketch aggregate functions.
func TestNestedAggConfig(t *testing.T) {
	str := types.DataType{Kind: types.KindVarChar, Length: types.MaxLength, Nullable: true}
	row := types.DataType{Kind: types.KindRow, Fields: []types.DataField{
		{ID: 10, Name: "id", Type: types.DataType{Kind: types.KindInt, Nullable: true}},
		{ID: 11, Name: "ts", Type: str},
	}}
	fields := []types.DataField{
		{ID: 0, Name: "k", Type: types.DataType{Kind: types.KindInt}},
		{ID: 1, Name: "bin", Type: types.DataType{Kind: types.KindVarBinary, Length: types.MaxLength, Nullable: true}},
		{ID: 2, Name: "rows", Type: types.DataType{Kind: types.KindArray, Nullable: true, Elem: &row}},
		{ID: 3, Name: "m", Type: types.DataType{Kind: types.KindMap, Nullable: true, Key: &types.DataType{Kind: types.KindInt}, Value: &row}},
		{ID: 4, Name: "mi", Type: types.DataType{Kind: types.KindMap, Nullable: true, Key: &types.DataType{Kind: types.KindInt}, Value: &str}},
	}
	cases := []struct {
		name string
		kv   []string
		want error
		msg  string
	}{
		{"ok rbm64", []string{"fields.bin.aggregate-function", "rbm64"}, nil, ""},
		{"rbm64 on array", []string{"fields.rows.aggregate-function", "rbm64"}, ErrInvalidOption, "VARBINARY"},
		{"ok hll_sketch", []string{"fields.bin.aggregate-function", "hll_sketch"}, nil, ""},
		{"ok theta_sketch", []string{"fields.bin.aggregate-function", "theta_sketch"}, nil, ""},
		{"rbm32 on array", []string{"fields.rows.aggregate-function", "rbm32"}, ErrInvalidOption, "VARBINARY"},
		{"partial update without key", []string{"fields.rows.aggregate-function", "nested_partial_update"}, ErrInvalidOption, "fields.rows.nested-key"},
		{"unknown nested key", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.nested-key", "nope"}, ErrInvalidOption, "nope"},
		{"bad count-limit", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.count-limit", "x"}, ErrInvalidOption, "fields.rows.count-limit"},
		{"null strategy without key", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.nested-key-null-strategy", "ignore"}, ErrInvalidOption, "nested-key"},
		{"bad null strategy", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.nested-key", "id", "fields.rows.nested-key-null-strategy", "drop"}, ErrInvalidOption, "nested-key-null-strategy"},
		{"sequence field without key", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.nested-sequence-field", "ts"}, ErrInvalidOption, "nested-key"},
		{"keytime value not a row", []string{"fields.mi.aggregate-function", "merge_map_with_keytime"}, ErrInvalidOption, "ROW"},
		{"keytime unknown ts field", []string{"fields.m.aggregate-function", "merge_map_with_keytime", "fields.m.ts-field", "zz"}, ErrInvalidOption, "fields.m.ts-field"},
		{"keytime int ts field", []string{"fields.m.aggregate-function", "merge_map_with_keytime", "fields.m.ts-field", "id"}, ErrInvalidOption, "string"},
		{"ok keytime", []string{"fields.m.aggregate-function", "merge_map_with_keytime"}, nil, ""},
		{"ok nested", []string{"fields.rows.aggregate-function", "nested_update", "fields.rows.nested-key", "id", "fields.rows.nested-sequence-field", "ts", "fields.rows.count-limit", "5"}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := map[string]string{"merge-engine": "aggregation"}
			for i := 0; i < len(c.kv); i += 2 {
				opts[c.kv[i]] = c.kv[i+1]
			}
			cfg, err := NewConfig(opts, fields, []string{"k"})
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if c.name == "ok nested" {
					s := cfg.aggs[2]
					if len(s.nestedKey) != 1 || s.nestedKey[0] != 0 || len(s.nestedSeq) != 1 || s.nestedSeq[0] != 1 || s.countLimit != 5 {
						t.Errorf("spec %+v", s)
					}
				}
				return
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.msg)
			}
		})
	}
}
