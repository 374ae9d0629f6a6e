package manifest

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hamba/avro/v2/ocf"
)

// The Avro library question of issue 17: our manifest codec (internal/ocf
// plus the per-version field tables of this package) against hamba/avro/v2,
// the well-kept Go Avro library already in go.mod, on the same 100,000
// manifest entries in Java's exact writer schema. hambaEntry mirrors that
// schema field for field, so hamba decodes everything a manifest entry
// holds (its fastest path: typed structs, no conversion to Entry counted).

type hambaStats struct {
	MinValues  []byte    `avro:"_MIN_VALUES"`
	MaxValues  []byte    `avro:"_MAX_VALUES"`
	NullCounts *[]*int64 `avro:"_NULL_COUNTS"`
}

type hambaFile struct {
	FileName          string     `avro:"_FILE_NAME"`
	FileSize          int64      `avro:"_FILE_SIZE"`
	RowCount          int64      `avro:"_ROW_COUNT"`
	MinKey            []byte     `avro:"_MIN_KEY"`
	MaxKey            []byte     `avro:"_MAX_KEY"`
	KeyStats          hambaStats `avro:"_KEY_STATS"`
	ValueStats        hambaStats `avro:"_VALUE_STATS"`
	MinSequenceNumber int64      `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64      `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64      `avro:"_SCHEMA_ID"`
	Level             int32      `avro:"_LEVEL"`
	ExtraFiles        []string   `avro:"_EXTRA_FILES"`
	CreationTime      *time.Time `avro:"_CREATION_TIME"`
	DeleteRowCount    *int64     `avro:"_DELETE_ROW_COUNT"`
	EmbeddedIndex     *[]byte    `avro:"_EMBEDDED_FILE_INDEX"`
	FileSource        *int32     `avro:"_FILE_SOURCE"`
	ValueStatsCols    *[]string  `avro:"_VALUE_STATS_COLS"`
	ExternalPath      *string    `avro:"_EXTERNAL_PATH"`
	FirstRowID        *int64     `avro:"_FIRST_ROW_ID"`
	WriteCols         *[]string  `avro:"_WRITE_COLS"`
}

type hambaEntry struct {
	Version      int32     `avro:"_VERSION"`
	Kind         int32     `avro:"_KIND"`
	Partition    []byte    `avro:"_PARTITION"`
	Bucket       int32     `avro:"_BUCKET"`
	TotalBuckets int32     `avro:"_TOTAL_BUCKETS"`
	File         hambaFile `avro:"_FILE"`
}

const avroBenchEntries = 100_000

func avroBenchManifest(b *testing.B) []byte {
	b.Helper()
	// Entries as a table's manifests hold them: distinct file names,
	// sizes, row counts and sequence numbers (identical entries would
	// compress past our decoder's budget for hostile files).
	entries := make([]Entry, avroBenchEntries)
	for i := range entries {
		e := sampleEntry()
		e.File.FileName = uuid.NewString() + "-" + strconv.Itoa(i) + ".parquet"
		e.File.FileSize = int64(i)*7919 + 1024
		e.File.RowCount = int64(i%5000) + 1
		e.File.MinSequenceNumber, e.File.MaxSequenceNumber = int64(i)*10, int64(i)*10+9
		e.Bucket = int32(i % 16)
		entries[i] = e
	}
	data, err := EncodeManifest(entries, WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkManifestAvro decodes 100,000 manifest entries with ours and
// with hamba/avro (typed structs and generic maps), and encodes them with
// ours and hamba (structs); ns/entry side by side.
func BenchmarkManifestAvro(b *testing.B) {
	data := avroBenchManifest(b)
	perEntry := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*avroBenchEntries), "ns/entry")
	}
	b.Run("decode/ours", func(b *testing.B) {
		for b.Loop() {
			got, err := DecodeManifest(data, "m")
			if err != nil || len(got) != avroBenchEntries {
				b.Fatal(len(got), err)
			}
		}
		perEntry(b)
	})
	b.Run("decode/hamba-struct", func(b *testing.B) {
		for b.Loop() {
			dec, err := ocf.NewDecoder(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for dec.HasNext() {
				var e hambaEntry
				if err := dec.Decode(&e); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if dec.Error() != nil || n != avroBenchEntries {
				b.Fatal(n, dec.Error())
			}
		}
		perEntry(b)
	})
	b.Run("decode/hamba-map", func(b *testing.B) {
		for b.Loop() {
			dec, err := ocf.NewDecoder(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for dec.HasNext() {
				var e map[string]any
				if err := dec.Decode(&e); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if dec.Error() != nil || n != avroBenchEntries {
				b.Fatal(n, dec.Error())
			}
		}
		perEntry(b)
	})
	entries, err := DecodeManifest(data, "m")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode/ours", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeManifest(entries, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		perEntry(b)
	})
	dec, err := ocf.NewDecoder(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	schema := dec.Schema()
	hs := make([]hambaEntry, 0, avroBenchEntries)
	for dec.HasNext() {
		var e hambaEntry
		if err := dec.Decode(&e); err != nil {
			b.Fatal(err)
		}
		hs = append(hs, e)
	}
	b.Run("encode/hamba-struct", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc, err := ocf.NewEncoderWithSchema(schema, &buf, ocf.WithCodec(ocf.ZStandard))
			if err != nil {
				b.Fatal(err)
			}
			for i := range hs {
				if err := enc.Encode(&hs[i]); err != nil {
					b.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				b.Fatal(err)
			}
		}
		perEntry(b)
	})
}

// TestManifestAvroDamaged feeds 500 damaged copies of a 2,000-entry
// manifest (random bytes overwritten past the header) to our decoder and
// to hamba's: ours must return an error or exactly the original entries
// (damage in bytes nobody reads), never panic and never other entries; the
// test logs how hamba fares (panics recovered, errors, successes).
func TestManifestAvroDamaged(t *testing.T) {
	entries := make([]Entry, 2000)
	for i := range entries {
		e := sampleEntry()
		e.File.FileName = uuid.NewString() + ".parquet"
		e.File.FileSize = int64(i) * 7919
		entries[i] = e
	}
	data, err := EncodeManifest(entries, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var oursErr, oursOK, hPanic, hErr, hOK int
	for range 500 {
		bad := bytes.Clone(data)
		for range 1 + rng.IntN(4) {
			bad[200+rng.IntN(len(bad)-200)] = byte(rng.IntN(256))
		}
		if got, err := DecodeManifest(bad, "m"); err != nil {
			oursErr++
		} else {
			oursOK++
			if len(got) != len(entries) {
				t.Fatalf("a damaged manifest decoded to %d entries, want an error or %d", len(got), len(entries))
			}
			for i := range got {
				if got[i].File.FileName != entries[i].File.FileName || got[i].File.FileSize != entries[i].File.FileSize {
					t.Fatalf("a damaged manifest decoded entry %d as %s/%d, want an error", i, got[i].File.FileName, got[i].File.FileSize)
				}
			}
		}
		func() {
			defer func() {
				if recover() != nil {
					hPanic++
				}
			}()
			dec, err := ocf.NewDecoder(bytes.NewReader(bad))
			if err != nil {
				hErr++
				return
			}
			for dec.HasNext() {
				var e hambaEntry
				if err := dec.Decode(&e); err != nil {
					hErr++
					return
				}
			}
			if dec.Error() != nil {
				hErr++
				return
			}
			hOK++
		}()
	}
	t.Logf("ours: %d errors, %d decoded; hamba: %d panics, %d errors, %d decoded", oursErr, oursOK, hPanic, hErr, hOK)
}
