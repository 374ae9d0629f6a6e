package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/paimon-go/paimon/internal/ocf"
)

// Dir is the directory, relative to the table (or branch) root, that holds manifest lists,
// manifests and index manifests.
const Dir = "manifest"

// FileReader is the part of the file system this package reads through; *fileio.FileIO
// satisfies it. Paths are relative to the table root (the root the FileIO was opened on).
type FileReader interface {
	// ReadFile returns the whole content of path.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// FileWriter is the part of the file system the writers need; *fileio.FileIO satisfies it.
type FileWriter interface {
	// WriteFile creates or overwrites path with data.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// Path returns the path of the manifest-directory file name relative to the table root
// ("manifest/<name>").
func Path(name string) string { return Dir + "/" + name }

// Reader reads the manifest files of one table. It caches the decoding plans compiled from
// writer schemas (all manifests of a table usually share one schema) and a zstd decoder, so
// reading many files costs little more than decoding their entries. A Reader is safe for
// concurrent use. Close releases the zstd decoder. It keeps no decoded files; see Cache for
// that.
type Reader struct {
	fs    FileReader
	codec codec
}

// codec is the decoding state shared by the files one Reader or Cache decodes: the decoders
// compiled per (record type, writer schema JSON) — compiling parses the schema JSON, which
// costs more than decoding a small file — and one zstd decoder. It is safe for concurrent use.
type codec struct {
	mu    sync.Mutex
	plans map[planKey]any
	zstd  *zstd.Decoder
}

// maxPlans bounds the compiled decoders a codec keeps; a table has a handful of writer
// schemas (one per Paimon version that wrote it), so the map is only cleared when something
// feeds it many distinct schemas.
const maxPlans = 64

type planKey struct {
	id     rowID
	schema string
}

// NewReader returns a Reader over fs, whose root is the table (or branch) directory.
func NewReader(fs FileReader) *Reader {
	return &Reader{fs: fs}
}

// Close releases the Reader's codec resources. The Reader must not be used afterwards.
func (r *Reader) Close() {
	r.codec.mu.Lock()
	defer r.codec.mu.Unlock()
	if r.codec.zstd != nil {
		r.codec.zstd.Close()
		r.codec.zstd = nil
	}
}

func (c *codec) zstdDecoder() (*zstd.Decoder, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.zstd == nil {
		d, err := ocf.NewZstdDecoder()
		if err != nil {
			return nil, err
		}
		c.zstd = d
	}
	return c.zstd, nil
}

// ManifestList reads manifest/<name>, a manifest list (Java ManifestList.read), and returns its
// rows in file order.
func (r *Reader) ManifestList(ctx context.Context, name string) ([]FileMeta, error) {
	data, err := r.fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest list %s: %w", name, err)
	}
	return decodeFile(&r.codec, data, name, listTable, listFromArrow)
}

// Manifest reads manifest/<name>, a manifest file (Java ManifestFile.read), and returns its
// entries in file order.
func (r *Reader) Manifest(ctx context.Context, name string) ([]Entry, error) {
	data, err := r.fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest %s: %w", name, err)
	}
	return decodeFile(&r.codec, data, name, entryTable, entriesFromArrow)
}

// IndexManifest reads manifest/<name>, an index manifest (Java IndexManifestFile.read): the
// complete list of live index files of a snapshot.
func (r *Reader) IndexManifest(ctx context.Context, name string) ([]IndexManifestEntry, error) {
	data, err := r.fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read index manifest %s: %w", name, err)
	}
	return decodeFile(&r.codec, data, name, indexTable, indexFromArrow)
}

// ReadManifestList reads manifest/<name>, a manifest list, without caching. Use a Reader to
// read many files.
func ReadManifestList(ctx context.Context, fs FileReader, name string) ([]FileMeta, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest list %s: %w", name, err)
	}
	return DecodeManifestList(data, name)
}

// ReadManifest reads manifest/<name>, a manifest file, without caching.
func ReadManifest(ctx context.Context, fs FileReader, name string) ([]Entry, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest %s: %w", name, err)
	}
	return DecodeManifest(data, name)
}

// ReadIndexManifest reads manifest/<name>, an index manifest, without caching.
func ReadIndexManifest(ctx context.Context, fs FileReader, name string) ([]IndexManifestEntry, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read index manifest %s: %w", name, err)
	}
	return DecodeIndexManifest(data, name)
}

// DecodeManifestList decodes the bytes of a manifest list; name is only used in errors.
func DecodeManifestList(data []byte, name string) ([]FileMeta, error) {
	return decodeFile(nil, data, name, listTable, listFromArrow)
}

// DecodeManifest decodes the bytes of a manifest file; name is only used in errors.
func DecodeManifest(data []byte, name string) ([]Entry, error) {
	return decodeFile(nil, data, name, entryTable, entriesFromArrow)
}

// DecodeIndexManifest decodes the bytes of an index manifest; name is only used in errors.
func DecodeIndexManifest(data []byte, name string) ([]IndexManifestEntry, error) {
	return decodeFile(nil, data, name, indexTable, indexFromArrow)
}

var (
	orcMagic     = []byte("ORC")
	parquetMagic = []byte("PAR1")
)

// decodeFile sniffs the format from the magic bytes and decodes every row.
// c may be nil (no caching).
func decodeFile[T any](c *codec, data []byte, name string, t *table[T], fromArrow arrowConverter[T]) ([]T, error) {
	return decodeFileBudget(c, data, name, t, fromArrow, DecodeBudget(len(data)))
}

// decodeFileBudget is decodeFile with an explicit decoding budget (bytes) for Avro files.
func decodeFileBudget[T any](c *codec, data []byte, name string, t *table[T], fromArrow arrowConverter[T], budget int64) ([]T, error) {
	switch {
	case bytes.HasPrefix(data, ocf.Magic[:]):
		rows, err := decodeAvro(c, data, t, budget)
		if err != nil {
			return nil, wrapDecodeErr(name, err)
		}
		return rows, nil
	case bytes.HasPrefix(data, orcMagic):
		rows, err := decodeORC(data, fromArrow)
		if err != nil {
			return nil, wrapDecodeErr(name, err)
		}
		return rows, nil
	case bytes.HasPrefix(data, parquetMagic):
		rows, err := decodeParquet(data, fromArrow)
		if err != nil {
			return nil, wrapDecodeErr(name, err)
		}
		return rows, nil
	}
	return nil, fmt.Errorf("%w: %s: unknown file format (no Avro, ORC or Parquet magic)", ErrCorrupt, name)
}

func wrapDecodeErr(name string, err error) error {
	switch {
	case errors.Is(err, ocf.ErrTooLarge):
		return fmt.Errorf("%w: %s: %w", ErrTooLarge, name, err)
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("manifest: %s: %w", name, err)
	case errors.Is(err, ErrUnsupportedVersion), errors.Is(err, ErrUnsupportedFormat):
		return fmt.Errorf("manifest: %s: %w", name, err)
	case errors.Is(err, ocf.ErrUnsupportedCodec):
		return fmt.Errorf("%w: %s: %w", ErrUnsupportedFormat, name, err)
	case errors.Is(err, ErrCorrupt):
		// Already says what it is (the Parquet and ORC decoders wrap it).
		return fmt.Errorf("manifest: %s: %w", name, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, name, err)
}

// maxPrealloc bounds the number of rows allocated up front from block headers.
const maxPrealloc = 1 << 16

// decodeAvro decodes an Avro object container file with the record layout t, decompressing and
// allocating at most budget bytes (see DecodeBudget).
func decodeAvro[T any](c *codec, data []byte, t *table[T], budget int64) ([]T, error) {
	var zdec *zstd.Decoder
	if c != nil {
		var err error
		if zdec, err = c.zstdDecoder(); err != nil {
			return nil, err
		}
	}
	f, err := ocf.Open(data, zdec)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := ocf.NewBudget(budget)
	f.SetBudget(b)
	total, err := f.RecordCount()
	if err != nil {
		return nil, err
	}
	read, err := plan(c, f.Schema, t)
	if err != nil {
		return nil, err
	}
	size := recordCost[T]()
	out := make([]T, 0, min(total, maxPrealloc, max(b.Left(), 0)/size))
	for {
		count, block, err := f.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		d := ocf.NewDecoder(block)
		d.SetBudget(b)
		for i := int64(0); i < count; i++ {
			if !d.Charge(size) {
				return nil, fmt.Errorf("record %d: %w", len(out), d.Err())
			}
			var zero T
			out = append(out, zero)
			read(d, &out[len(out)-1])
			if err := d.Err(); err != nil {
				return nil, fmt.Errorf("record %d: %w", len(out)-1, err)
			}
		}
	}
}

// plan returns the decoder compiled for writer schema JSON schema, cached in c (when not nil).
// It fills a record in place.
func plan[T any](c *codec, schema []byte, t *table[T]) (func(d *ocf.Decoder, v *T), error) {
	key := planKey{id: t.desc.id, schema: string(schema)}
	if c != nil {
		c.mu.Lock()
		p, ok := c.plans[key]
		c.mu.Unlock()
		if ok {
			return p.(func(d *ocf.Decoder, v *T)), nil
		}
	}
	ws, err := ocf.ParseSchema(schema)
	if err != nil {
		return nil, err
	}
	read, err := compileTop(ws, t)
	if err != nil {
		return nil, fmt.Errorf("writer schema: %w", err)
	}
	if c != nil {
		c.mu.Lock()
		if c.plans == nil || len(c.plans) >= maxPlans {
			c.plans = map[planKey]any{}
		}
		c.plans[key] = read
		c.mu.Unlock()
	}
	return read, nil
}

// compileTop compiles the top-level writer schema: a record, or (0.8/0.9 files) a
// ["null", record] union whose null branch is never valid data.
func compileTop[T any](ws *ocf.Schema, t *table[T]) (func(d *ocf.Decoder, v *T), error) {
	c := newCompiler()
	if ws.Type == ocf.Union {
		f, err := optionalInto(ws, c, t.compileInto)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder, v *T) {
			if !f(d, v) && d.Err() == nil {
				d.Failf("null top-level record")
			}
		}, nil
	}
	return t.compileInto(ws, c)
}
