package parquet

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/memcheck"
	"github.com/paimon-go/paimon/types"
)

// TestHostilePageBoundedMemory reads a 10 KB zstd file whose one page holds a 200 MiB string of
// zeros: the page's declared size exceeds the file's budget, the read fails with
// format.ErrTooLarge naming the file, within 256 MiB of heap.
func TestHostilePageBoundedMemory(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "s", Type: types.String()}}
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Append(string(make([]byte, 200<<20)))
		col := b.NewArray()
		rec := array.NewRecordBatch(types.SchemaToArrow(fields), []arrow.Array{col}, 1)
		defer rec.Release()
		col.Release()
		b.Release()
		data, _ := writeFile(t, fields, map[string]string{OptionFileCompression: "zstd"}, rec)
		t.Logf("%d bytes", len(data))
		return data
	}, func(data []byte) string {
		err := readErr(data, "hostile.parquet", fields)
		if errors.Is(err, format.ErrTooLarge) && strings.Contains(err.Error(), "hostile.parquet") {
			return "ok"
		}
		return fmt.Sprintf("err = %v, want format.ErrTooLarge", err)
	})
	t.Logf("peak heap %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
	}
	if res != "ok" {
		t.Error(res)
	}
}

// TestMaxPageSize pins the page bound: a file's budget over its columns, within [1 MiB, 256 MiB].
func TestMaxPageSize(t *testing.T) {
	for _, c := range []struct {
		size    int64
		columns int
		want    int64
	}{
		{10 << 10, 1, 32 << 20},
		{10 << 10, 64, 1 << 20},
		{1 << 20, 2, 128 << 20},
		{1 << 30, 1, 256 << 20},
		{0, 0, 32 << 20},
	} {
		if got := maxPageSize(c.size, c.columns); got != c.want {
			t.Errorf("maxPageSize(%d, %d) = %d, want %d", c.size, c.columns, got, c.want)
		}
	}
}
