package parquet

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// readErr opens and fully reads data, returning the first error.
func readErr(data []byte, name string, want []types.DataField) (err error) {
	ctx := context.Background()
	r, err := NewReader(ctx, bytesFile(data), name, want, format.ReadOptions{BatchSize: 3})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		b, err := r.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b.Record.Release()
	}
}

func knownError(err error) bool {
	return errors.Is(err, format.ErrCorrupt) || errors.Is(err, format.ErrSchemaMismatch) ||
		errors.Is(err, format.ErrOutOfRange) || errors.Is(err, format.ErrUnsupportedFormat)
}

// corruptInputs returns a Java-written file (nested MAP<ARRAY,ROW>, INT96,
// DECIMAL) and a file of this writer with all types.
func corruptInputs(t *testing.T) map[string]struct {
	data []byte
	want []types.DataField
} {
	java, err := os.ReadFile(filepath.Join(tablesDir, "parquet_append_table/bucket-0/data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rec := recordFromJSON(t, allTypes(), allTypesJSON)
	defer rec.Release()
	ours, _ := writeFile(t, allTypes(), map[string]string{"file.compression": "none"}, rec)
	return map[string]struct {
		data []byte
		want []types.DataField
	}{
		"java.parquet": {java, tableSchema(t, "parquet_append_table", 0)},
		"ours.parquet": {ours, allTypes()},
	}
}

// TestTruncated: every proper prefix of a file is an ErrCorrupt error that
// names the file.
func TestTruncated(t *testing.T) {
	for name, in := range corruptInputs(t) {
		for n := 0; n < len(in.data); n++ {
			err := readErr(in.data[:n], name, in.want)
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), name) {
				t.Fatalf("%s cut to %d bytes: %v", name, n, err)
			}
		}
	}
}

// TestBitFlips damages every byte of both files in turn (flipping bit 0,
// bit 7 or all bits, rotating);
// each read either succeeds or fails with one of the format errors naming
// the file, and never panics out of the package. It logs how often the
// last-resort recover in guard fired.
func TestBitFlips(t *testing.T) {
	if testing.Short() {
		t.Skip("reads about 9000 damaged files")
	}
	recovered, failures, total := 0, 0, 0
	for name, in := range corruptInputs(t) {
		buf := make([]byte, len(in.data))
		for i := range in.data {
			for _, mask := range []byte{[]byte{0x01, 0x80, 0xFF}[i%3]} {
				copy(buf, in.data)
				buf[i] ^= mask
				total++
				err := readErr(buf, name, in.want)
				if err == nil {
					continue
				}
				failures++
				if !knownError(err) || !strings.Contains(err.Error(), name) {
					t.Fatalf("%s byte %d ^%#x: %v", name, i, mask, err)
				}
				if strings.Contains(err.Error(), "decoder failure") {
					recovered++
				}
			}
		}
	}
	t.Logf("%d damaged files: %d errors, %d of them recovered panics inside arrow-go", total, failures, recovered)
}

// failingFile fails every read after the first limit bytes.
type failingFile struct {
	bytesFile
	limit int64
}

var errDisk = errors.New("disk on fire")

func (f failingFile) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.limit {
		return 0, errDisk
	}
	return f.bytesFile.ReadAt(p, off)
}

// TestIOErrorIsNotCorruption: an I/O error of the file surfaces as itself
// (errors.Is), not as ErrCorrupt.
func TestIOErrorIsNotCorruption(t *testing.T) {
	in := corruptInputs(t)["ours.parquet"]
	for _, limit := range []int64{0, int64(len(in.data)) / 2} {
		err := func() error {
			r, err := NewReader(context.Background(), failingFile{bytesFile(in.data), limit}, "io.parquet", in.want, format.ReadOptions{})
			if err != nil {
				return err
			}
			defer r.Close()
			_, err = r.Next(context.Background())
			return err
		}()
		if !errors.Is(err, errDisk) || errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "io.parquet") {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
}

// TestContextCanceled: NewReader, Next and Write honour a canceled context.
func TestContextCanceled(t *testing.T) {
	in := corruptInputs(t)["ours.parquet"]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewReader(ctx, bytesFile(in.data), "c.parquet", in.want, format.ReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("NewReader: %v", err)
	}
	r, err := NewReader(context.Background(), bytesFile(in.data), "c.parquet", in.want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next: %v", err)
	}
}
