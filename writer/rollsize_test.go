package writer_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/writer"
)

// TestRollingFileSizeFlights writes the 3M flights rows (13.8 MB as one
// file) into append tables with target-file-size 2, 4 and 8 mb and checks
// that every rolled file (all but the last) lands within 25% of the target,
// as Java's RollingFileWriter does with ParquetWriter.getDataSize.
func TestRollingFileSizeFlights(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the flights data set")
	}
	batches, rows := loadFlights(t)
	for _, mb := range []int64{2, 4, 8} {
		t.Run(strconv.FormatInt(mb, 10)+"mb", func(t *testing.T) {
			target := mb << 20
			ctx := context.Background()
			c, err := catalog.Open(ctx, "mem://")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.CreateDatabase(ctx, "db", true); err != nil {
				t.Fatal(err)
			}
			id := catalog.NewIdentifier("db", "t")
			s := catalog.Schema{Fields: flightsFields, Options: map[string]string{"target-file-size": strconv.FormatInt(mb, 10) + " mb"}}
			if err := c.CreateTable(ctx, id, s, false); err != nil {
				t.Fatal(err)
			}
			tbl, err := c.GetTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			w, err := writer.New(tbl.FileIO, tbl.Schema, "roll")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for _, r := range batches {
				if err := w.Write(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int64
			var total int64
			for _, m := range msgs {
				for _, f := range m.Data.NewFiles {
					sizes = append(sizes, f.FileSize)
					total += f.RowCount
				}
			}
			if total != rows {
				t.Fatalf("files hold %d rows, wrote %d", total, rows)
			}
			if len(sizes) < 2 {
				t.Fatalf("%d file(s) of %v bytes, want a roll at %d bytes", len(sizes), sizes, target)
			}
			t.Logf("target %d: %d files: %v", target, len(sizes), sizes)
			for i, sz := range sizes[:len(sizes)-1] {
				if sz < target*3/4 || sz > target*5/4 {
					t.Errorf("file %d is %d bytes, want within [%d, %d]", i, sz, target*3/4, target*5/4)
				}
			}
		})
	}
}
