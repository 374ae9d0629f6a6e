package orc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/orc"
	"github.com/paimon-go/paimon/types"
)

// exampleFile is a written file held in memory (format.File).
type exampleFile struct{ *bytes.Reader }

func (m exampleFile) Size() int64 { return m.Reader.Size() }

// A data file written with the table's fields (Paimon field ids travel in
// the file) and read back with a projection; the writer returns the row
// count and per-column statistics that go into the data file meta.
func ExampleFormat() {
	ctx := context.Background()
	fields := []types.DataField{types.Field(0, "id", types.BigInt().NotNull()), types.Field(1, "city", types.String())}
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(fields))
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{3, 1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"Oslo", "", "Lima"}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()

	var buf bytes.Buffer
	w, err := orc.Format{}.NewWriter(ctx, &buf, "data-0.orc", fields, format.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		log.Fatal(err)
	}
	res, err := w.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}
	st := res.Stats[0]
	fmt.Printf("%d rows; id min %v max %v, city nulls %d\n", res.RowCount, st.Min, st.Max, res.Stats[1].NullCount)

	r, err := orc.Format{}.NewReader(ctx, exampleFile{bytes.NewReader(buf.Bytes())}, "data-0.orc", fields[1:], format.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		bt, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(bt.FirstRow, bt.Record.Column(0))
		bt.Record.Release()
	}
	// Output:
	// 3 rows; id min 1 max 3, city nulls 1
	// 0 ["Oslo" (null) "Lima"]
}
