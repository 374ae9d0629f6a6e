package avro

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/types"
)

// TestStatsMatchParquet: the statistics the Avro writer collects (Java's
// SimpleStatsCollector for Avro) equal those the Parquet writer reports for
// the same rows written as two batches, for every column type (nested
// columns: null count only).
func TestStatsMatchParquet(t *testing.T) {
	ctx := context.Background()
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	a, b := rec.NewSlice(0, 1), rec.NewSlice(1, 3)
	defer a.Release()
	defer b.Release()
	_, res := writeFile(t, fields, nil, a, b)

	var buf bytes.Buffer
	pw, err := parquet.NewWriter(ctx, &buf, "p.parquet", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pw.Write(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := pw.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	pres, err := pw.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fields {
		got, want := res.Stats[i], pres.Stats[i]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("column %s: stats %v, parquet %v", f.Name, got, want)
		}
	}
	// Exact values of a few columns, independently of the Parquet writer.
	if s := res.Stats[3]; s.Min != int32(-2147483648) || s.Max != int32(2) || s.NullCount != 0 {
		t.Errorf("i: %+v", s)
	}
	if s := res.Stats[8]; s.Min != "" || s.Max != "héllo" || s.NullCount != 1 {
		t.Errorf("v: %+v", s)
	}
	if s := res.Stats[17]; s.Min != (types.Timestamp{Millis: 1700000000123}) || s.Max != s.Min || s.NullCount != 2 {
		t.Errorf("ts3: %+v", s)
	}
	if s := res.Stats[21]; s.Min != nil || s.Max != nil || s.NullCount != 1 {
		t.Errorf("arr: %+v", s)
	}
}
