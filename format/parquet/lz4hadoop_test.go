package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pierrec/lz4/v4"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// hadoopFrame is one frame of Hadoop's BlockCompressorStream around a raw
// LZ4 block of src, built independently of lz4HadoopCodec.Encode.
func hadoopFrame(t *testing.T, src []byte) []byte {
	t.Helper()
	block := make([]byte, lz4.CompressBlockBound(len(src)))
	n, err := lz4.CompressBlock(src, block, nil)
	if err != nil || n == 0 {
		t.Fatalf("compress: %d, %v", n, err)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(src)))
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	return append(out, block[:n]...)
}

// TestLZ4HadoopDecode: pages of parquet-mr's LZ4 codec (Hadoop frames, one
// or several) decode to their bytes, a raw LZ4 block decodes as Arrow C++
// accepts it, and garbage is an error, not a panic.
func TestLZ4HadoopDecode(t *testing.T) {
	a := bytes.Repeat([]byte("paimon lz4 "), 40)
	b := bytes.Repeat([]byte("second frame "), 30)
	two := append(hadoopFrame(t, a), hadoopFrame(t, b)...)
	got, err := lz4HadoopCodec{}.DecodeWithError(make([]byte, len(a)+len(b)), two)
	if err != nil || !bytes.Equal(got, append(slices.Clone(a), b...)) {
		t.Fatalf("two frames: %q, %v", got, err)
	}
	raw := make([]byte, lz4.CompressBlockBound(len(a)))
	n, _ := lz4.CompressBlock(a, raw, nil)
	if got, err := (lz4HadoopCodec{}).DecodeWithError(make([]byte, len(a)), raw[:n]); err != nil || !bytes.Equal(got, a) {
		t.Fatalf("raw block: %q, %v", got, err)
	}
	if _, err := (lz4HadoopCodec{}).DecodeWithError(make([]byte, 16), []byte{0, 0, 0, 99, 0, 0, 0, 1, 0xff}); !errors.Is(err, errLZ4Frame) {
		t.Fatalf("garbage: %v", err)
	}
}

// TestReadLZ4HadoopFile: a Parquet file whose column chunks use codec LZ4
// (what Java Paimon writes for file.compression = lz4 through parquet-mr)
// reads back exactly. Old code refused it with format.ErrUnsupportedFormat.
func TestReadLZ4HadoopFile(t *testing.T) {
	fields := []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "s", types.String())}
	rec, _, err := array.RecordFromJSON(nil, types.SchemaToArrow(fields),
		strings.NewReader(`[{"id":1,"s":"a"},{"id":2,"s":null},{"id":3,"s":"ccc"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Lz4), parquet.WithDictionaryDefault(false))
	if err := pqarrow.WriteTable(array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec}), &buf, 1024, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	rows, _ := readBytes(t, buf.Bytes(), fields, format.ReadOptions{})
	if want := []string{"1 | a", "2 | null", "3 | ccc"}; !slices.Equal(rows, want) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
}
