package parquet

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

func TestScratchDump(t *testing.T) {
	root := "../../testdata/paimon-tables"
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if filepath.Ext(p) == ".parquet" {
			files = append(files, p)
		}
		return nil
	})
	seen := map[string]bool{}
	for _, f := range files {
		tbl := filepath.Base(filepath.Dir(filepath.Dir(f)))
		r, err := file.OpenParquetFile(f, false)
		if err != nil {
			fmt.Println(f, err)
			continue
		}
		md := r.MetaData()
		key := filepath.Dir(f)[len(root):]
		_ = tbl
		fmt.Println("==", f[len(root):], "rows", md.NumRows, "rg", md.NumRowGroups(), "created_by", md.GetCreatedBy())
		s := fmt.Sprint(md.Schema.Root())
		_ = s
		if !seen[filepath.Dir(key)] {
			schema.PrintSchema(md.Schema.Root(), os.Stdout, 2)
			fmt.Println(md.KeyValueMetadata())
		}
		seen[filepath.Dir(key)] = true
		r.Close()
	}
}
