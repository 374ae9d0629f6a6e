package compaction_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	binrow "github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// dvKVFields is the KeyValue layout of a table (k BIGINT primary key,
// v STRING): _KEY_k (id Integer.MAX_VALUE/2 + 0), _SEQUENCE_NUMBER,
// _VALUE_KIND, k, v.
var dvKVFields = []types.DataField{
	{ID: 1073741823, Name: "_KEY_k", Type: types.BigInt().NotNull()},
	{ID: 2147483646, Name: "_SEQUENCE_NUMBER", Type: types.BigInt().NotNull()},
	{ID: 2147483645, Name: "_VALUE_KIND", Type: types.TinyInt().NotNull()},
	{ID: 0, Name: "k", Type: types.BigInt().NotNull()},
	{ID: 1, Name: "v", Type: types.String()},
}

var bigintKey = []types.DataType{types.BigInt()}

func keyBytes(t *testing.T, k int64) []byte {
	t.Helper()
	r, err := binrow.Encode(bigintKey, []any{k})
	if err != nil {
		t.Fatal(err)
	}
	return binrow.Serialize(r)
}

// writeKVFile writes a Parquet data file bucket-0/<name> at level holding
// keys (ascending) with values "<name>:<k>", and returns its metadata.
func writeKVFile(t *testing.T, fio *fileio.FileIO, name string, level int32, keys ...int64) manifest.DataFileMeta {
	t.Helper()
	ctx := context.Background()
	out, err := fio.Create(ctx, "bucket-0/"+name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(ctx, out, name, dvKVFields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := types.SchemaToArrow(dvKVFields)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, k := range keys {
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Int8Builder).Append(0)
		b.Field(3).(*array.Int64Builder).Append(k)
		b.Field(4).(*array.StringBuilder).Append(name + ":" + strconv.FormatInt(k, 10))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return manifest.DataFileMeta{FileName: name, Level: level, RowCount: int64(len(keys)),
		MinKey: keyBytes(t, keys[0]), MaxKey: keyBytes(t, keys[len(keys)-1])}
}

// dvFixture is a bucket with level 2 = {f2a: 1 3 5, f2b: 7 9} and level 4 =
// {f4: 2 3 4 7 8 10}, where rows 1 and 3 of f4 (keys 3 and 7, which level 2
// replaced) are already deleted.
func dvFixture(t *testing.T) (*fileio.FileIO, []compaction.LevelSortedRun, *deletionvector.Maintainer) {
	t.Helper()
	fio, err := fileio.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	f2a := writeKVFile(t, fio, "f2a.parquet", 2, 1, 3, 5)
	f2b := writeKVFile(t, fio, "f2b.parquet", 2, 7, 9)
	f4 := writeKVFile(t, fio, "f4.parquet", 4, 2, 3, 4, 7, 8, 10)
	dvs := deletionvector.NewMaintainer(false)
	for _, p := range []int64{1, 3} {
		if err := dvs.NotifyNewDeletion("f4.parquet", p); err != nil {
			t.Fatal(err)
		}
	}
	above := []compaction.LevelSortedRun{
		{Level: 2, Run: compaction.SortedRun{Files: []manifest.DataFileMeta{f2a, f2b}}},
		{Level: 4, Run: compaction.SortedRun{Files: []manifest.DataFileMeta{f4}}},
	}
	return fio, above, dvs
}

func dvPositions(dvs *deletionvector.Maintainer) map[string][]int64 {
	out := map[string][]int64{}
	for _, f := range dvs.DataFiles() {
		out[f] = slices.Collect(dvs.DeletionVectorOf(f).All())
	}
	return out
}

// dvFileSchema is the table schema the fixture files were written with.
var dvFileSchema = &schema.TableSchema{Fields: dvKVFields[3:], PrimaryKeys: []string{"k"}}

// fileReader is a KeyReader of the target columns (a prefix of dvKVFields)
// of the fixture's files, batchSize rows at a time (0: the default),
// through reader.ReadDataFile.
func fileReader(fio *fileio.FileIO, target []types.DataField, batchSize int) compaction.KeyReader {
	return func(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
		return reader.ReadDataFile(ctx, fio, "bucket-0/"+f.FileName, dvFileSchema, target, reader.FileReadOptions{BatchSize: batchSize})
	}
}

// countingReader counts the files a KeyReader opens.
func countingReader(read compaction.KeyReader, opened *[]string) compaction.KeyReader {
	return func(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
		*opened = append(*opened, f.FileName)
		return read(ctx, f)
	}
}

func TestMarkReplaced(t *testing.T) {
	ctx := context.Background()
	fio, above, dvs := dvFixture(t)
	var opened []string
	// Two rows per batch, so that lookups cross batch boundaries.
	read := countingReader(fileReader(fio, dvKVFields[:1], 2), &opened)
	keys := [][]any{{int64(0)}, {int64(2)}, {int64(3)}, {int64(4)}, {int64(6)}, {int64(7)}, {int64(8)}, {int64(9)}, {int64(11)}}
	n, err := compaction.MarkReplaced(ctx, keys, compaction.NewKeyOrder(bigintKey), bigintKey, above, read, dvs)
	if err != nil {
		t.Fatal(err)
	}
	// 2 -> f4 row 0; 3 -> f2a row 1; 4 -> f4 row 2; 7 -> f2b row 0;
	// 8 -> f4 row 4 (row 3, key 7, was deleted before); 9 -> f2b row 1.
	if n != 6 {
		t.Errorf("marked %d rows, want 6", n)
	}
	want := map[string][]int64{"f2a.parquet": {1}, "f2b.parquet": {0, 1}, "f4.parquet": {0, 1, 2, 3, 4}}
	if got := dvPositions(dvs); !equalPositions(got, want) {
		t.Errorf("deletion vectors %v, want %v", got, want)
	}
	if !slices.Equal(opened, []string{"f2a.parquet", "f4.parquet", "f2b.parquet"}) {
		t.Errorf("opened %v, want each file once", opened)
	}
}

func equalPositions(a, b map[string][]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestDVLookupFind reads whole KeyValue rows (the old record Java merges for
// engines other than deduplicate) and checks that rows deleted on a lower
// level fall through to the next level only when that level holds the key.
func TestDVLookupFind(t *testing.T) {
	ctx := context.Background()
	fio, above, dvs := dvFixture(t)
	l := compaction.NewDVLookup(compaction.NewKeyOrder(bigintKey), bigintKey, above,
		fileReader(fio, dvKVFields, 0), dvs)
	defer l.Close()
	hit, ok, err := l.Find(ctx, []any{int64(3)})
	if err != nil || !ok {
		t.Fatalf("Find(3) = %v, %v", ok, err)
	}
	if hit.Level != 2 || hit.File != "f2a.parquet" || hit.Position != 1 || hit.Row != 1 {
		t.Errorf("Find(3) = level %d %s row %d (batch row %d), want level 2 f2a.parquet row 1", hit.Level, hit.File, hit.Position, hit.Row)
	}
	if v := hit.Batch.Column(4).(*array.String).Value(hit.Row); v != "f2a.parquet:3" {
		t.Errorf("value %q, want f2a.parquet:3", v)
	}
	// Mark 3 deleted on level 2: level 4 holds 3 only as a deleted row.
	if marked, err := l.MarkReplaced(ctx, []any{int64(3)}); err != nil || !marked {
		t.Fatalf("MarkReplaced(3) = %v, %v", marked, err)
	}
	if _, ok, err := l.Find(ctx, []any{int64(3)}); err != nil || ok {
		t.Errorf("Find(3) after marking = %v, %v; want not found", ok, err)
	}
	// Key 10 lives only on level 4, in its last row.
	hit, ok, err = l.Find(ctx, []any{int64(10)})
	if err != nil || !ok || hit.Level != 4 || hit.File != "f4.parquet" || hit.Position != 5 {
		t.Errorf("Find(10) = %+v, %v, %v; want f4.parquet row 5", hit, ok, err)
	}
	// MarkBatch on a batch of output keys (the rest ascending).
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int64}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 12}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if n, err := l.MarkBatch(ctx, rec); err != nil || n != 1 {
		t.Errorf("MarkBatch = %d, %v; want 1", n, err)
	}
	want := map[string][]int64{"f2a.parquet": {1}, "f4.parquet": {1, 3, 5}}
	if got := dvPositions(dvs); !equalPositions(got, want) {
		t.Errorf("deletion vectors %v, want %v", got, want)
	}
}

func TestDVLookupErrors(t *testing.T) {
	ctx := context.Background()
	_, above, dvs := dvFixture(t)
	boom := errors.New("boom")
	failing := func(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
		return func(yield func(arrow.RecordBatch, error) bool) { yield(nil, boom) }
	}
	if _, err := compaction.MarkReplaced(ctx, [][]any{{int64(3)}}, compaction.NewKeyOrder(bigintKey), bigintKey, above, failing, dvs); !errors.Is(err, boom) {
		t.Errorf("reader error: %v", err)
	}
	// A key range that does not decode.
	bad := slices.Clone(above)
	bad[0].Run.Files = []manifest.DataFileMeta{{FileName: "x", Level: 2, MinKey: []byte{1}, MaxKey: []byte{2}}}
	if _, err := compaction.MarkReplaced(ctx, [][]any{{int64(3)}}, compaction.NewKeyOrder(bigintKey), bigintKey, bad, failing, dvs); !errors.Is(err, compaction.ErrCorrupt) {
		t.Errorf("bad key range: %v, want ErrCorrupt", err)
	}
	// Key columns of another type.
	fio, above2, dvs2 := dvFixture(t)
	strKey := []types.DataType{types.String()}
	read := fileReader(fio, dvKVFields[:1], 0)
	if _, err := compaction.MarkReplaced(ctx, [][]any{{int64(3)}}, compaction.NewKeyOrder(bigintKey), strKey, above2, read, dvs2); !errors.Is(err, compaction.ErrSchema) {
		t.Errorf("wrong key type: %v, want ErrSchema", err)
	}
	if len(dvs2.DataFiles()) != 1 {
		t.Errorf("failed lookups changed the vectors: %v", dvs2.DataFiles())
	}
}
