package parquet

import (
	"fmt"
	"testing"

	"github.com/paimon-go/paimon/format"
)

func TestZZExplore(t *testing.T) {
	for _, tc := range []struct{ table string; schema int }{
		{"parquet_append_table", 0},
		{"append_complex_data_parquet", 0},
		{"append_with_multiple_ts_precision_and_timezone_parquet", 0},
		{"append_table_with_alter_table_parquet", 1},
		{"pk_table_nested_type_parquet", 0},
	} {
		want := tableSchema(t, tc.table, tc.schema)
		for _, p := range parquetFiles(t, tc.table) {
			rows, _ := readFile(t, p, want, format.ReadOptions{})
			fmt.Println("==", p)
			for _, r := range rows {
				fmt.Println("  ", r)
			}
		}
	}
}
