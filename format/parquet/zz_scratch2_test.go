package parquet

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

func TestScratchFlights(t *testing.T) {
	r, err := file.OpenParquetFile("/work/shared/data/flights-3m.parquet", false)
	if err != nil {
		t.Fatal(err)
	}
	md := r.MetaData()
	fmt.Println("rows", md.NumRows, "rg", md.NumRowGroups(), md.GetCreatedBy())
	schema.PrintSchema(md.Schema.Root(), os.Stdout, 2)
	for i := 0; i < md.NumRowGroups(); i++ {
		rg := md.RowGroup(i)
		fmt.Print(rg.NumRows(), " ", rg.TotalByteSize(), ": ")
		for c := 0; c < rg.NumColumns(); c++ {
			cc, _ := rg.ColumnChunk(c)
			fmt.Print(cc.Compression(), " ", cc.Encodings(), " ", cc.TotalCompressedSize(), "; ")
		}
		fmt.Println()
	}
	fmt.Println(md.KeyValueMetadata().Keys())
}
