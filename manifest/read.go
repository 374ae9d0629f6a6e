package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hamba/avro/v2"

	"github.com/paimon-go/paimon/manifest/internal/ocf"
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

// ReadManifestList reads manifest/<name>, a manifest list (Java ManifestList.read), and returns
// its rows in file order.
func ReadManifestList(ctx context.Context, fs FileReader, name string) ([]FileMeta, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest list %s: %w", name, err)
	}
	return DecodeManifestList(data, name)
}

// ReadManifest reads manifest/<name>, a manifest file (Java ManifestFile.read), and returns its
// entries in file order.
func ReadManifest(ctx context.Context, fs FileReader, name string) ([]Entry, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read manifest %s: %w", name, err)
	}
	return DecodeManifest(data, name)
}

// ReadIndexManifest reads manifest/<name>, an index manifest (Java IndexManifestFile.read): the
// complete list of live index files of a snapshot.
func ReadIndexManifest(ctx context.Context, fs FileReader, name string) ([]IndexManifestEntry, error) {
	data, err := fs.ReadFile(ctx, Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest: read index manifest %s: %w", name, err)
	}
	return DecodeIndexManifest(data, name)
}

// DecodeManifestList decodes the bytes of a manifest list; name is only used in errors.
func DecodeManifestList(data []byte, name string) ([]FileMeta, error) {
	return decodeFile(data, name, listTable, listFromArrow)
}

// DecodeManifest decodes the bytes of a manifest file; name is only used in errors.
func DecodeManifest(data []byte, name string) ([]Entry, error) {
	return decodeFile(data, name, entryTable, entriesFromArrow)
}

// DecodeIndexManifest decodes the bytes of an index manifest; name is only used in errors.
func DecodeIndexManifest(data []byte, name string) ([]IndexManifestEntry, error) {
	return decodeFile(data, name, indexTable, indexFromArrow)
}

var (
	orcMagic     = []byte("ORC")
	parquetMagic = []byte("PAR1")
)

// decodeFile sniffs the format from the magic bytes and decodes every row.
func decodeFile[T any](data []byte, name string, t *table[T], fromArrow arrowConverter[T]) ([]T, error) {
	switch {
	case bytes.HasPrefix(data, ocf.Magic[:]):
		rows, err := decodeAvro(data, t)
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
		return nil, fmt.Errorf("%w: %s is a Parquet manifest", ErrUnsupportedFormat, name)
	}
	return nil, fmt.Errorf("%w: %s: unknown file format (no Avro or ORC magic)", ErrCorrupt, name)
}

func wrapDecodeErr(name string, err error) error {
	switch {
	case errors.Is(err, ErrUnsupportedVersion), errors.Is(err, ErrUnsupportedFormat):
		return fmt.Errorf("manifest: %s: %w", name, err)
	case errors.Is(err, ocf.ErrUnsupportedCodec):
		return fmt.Errorf("%w: %s: %w", ErrUnsupportedFormat, name, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, name, err)
}

// decodeAvro decodes an Avro object container file with the record layout t.
func decodeAvro[T any](data []byte, t *table[T]) ([]T, error) {
	f, err := ocf.Open(data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ws, err := avro.ParseBytesWithCache(f.Schema, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("writer schema: %w", err)
	}
	read, err := compileTop(ws, t)
	if err != nil {
		return nil, fmt.Errorf("writer schema: %w", err)
	}
	var out []T
	for {
		count, block, err := f.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]T, 0, count)
		}
		d := ocf.NewDecoder(block)
		for i := int64(0); i < count; i++ {
			v := read(d)
			if err := d.Err(); err != nil {
				return nil, fmt.Errorf("record %d: %w", len(out), err)
			}
			out = append(out, v)
		}
	}
}

// compileTop compiles the top-level writer schema: a record, or (0.8/0.9 files) a
// ["null", record] union whose null branch is never valid data.
func compileTop[T any](ws avro.Schema, t *table[T]) (dec[T], error) {
	c := newCompiler()
	if u, ok := deref(ws).(*avro.UnionSchema); ok {
		f, err := optional(u, c, t.compile)
		if err != nil {
			return nil, err
		}
		return func(d *ocf.Decoder) T {
			v, ok := f(d)
			if !ok && d.Err() == nil {
				d.Failf("null top-level record")
			}
			return v
		}, nil
	}
	return t.compile(ws, c)
}
