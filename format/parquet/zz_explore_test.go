package parquet

import (
	"fmt"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

func TestZZExplore(t *testing.T) {
	for _, tc := range []struct{ table string; schema int }{
		{"append_09_parquet", 0},
		{"pk_09_parquet", 0},
	} {
		want := tableSchema(t, tc.table, tc.schema)
		want = append([]types.DataField{types.Field(2147483646, "_SEQUENCE_NUMBER", types.BigInt().NotNull()), types.Field(2147483645, "_VALUE_KIND", types.TinyInt().NotNull())}, want...)
		for _, p := range parquetFiles(t, tc.table) {
			rows, _ := readFile(t, p, want, format.ReadOptions{})
			fmt.Println("==", p)
			for _, r := range rows {
				fmt.Println("  ", r)
			}
		}
	}
}
