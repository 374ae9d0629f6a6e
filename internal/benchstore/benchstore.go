// Package benchstore is the warehouse a benchmark program (cmd/rtbench,
// cmd/compactbench) runs against: chosen on the command line, opened as a
// FileIO and a catalog with the program's database in it, and at the end
// closed, its temporary directory removed or kept.
//
// A warehouse is one of
//
//   - a fresh temporary local directory (the default), removed by Close
//     unless --keep;
//   - a given location (--store, alias --dir): a URL fileio.Open takes
//     (file:///dir, mem://, s3://bucket/prefix?..., gs://bucket/prefix),
//     used as it is, or a local directory path without a scheme, made
//     absolute and created if missing; Close leaves it in place;
//   - a fresh bucket on a MinIO server started for the run on 127.0.0.1
//     (--minio, testenv.StartMinIO); Close stops the server, whose data
//     directory goes with it.
//
// "Warehouse" is Paimon's term (Java CatalogOptions.WAREHOUSE): the root under
// which the catalog keeps <database>.db/<table> directories. The package has no
// Java counterpart; it is tooling for the benchmark commands.
package benchstore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
)

// ErrConflict marks warehouse flags that exclude each other (--minio with
// --store or --dir). Its text, "exclude each other", completes the message
// that names the two flags.
var ErrConflict = errors.New("exclude each other")

// Kinds of Warehouse.Kind besides the scheme of a given URL.
const (
	// KindLocal is a local directory: temporary, a path, or a file:// URL.
	KindLocal = "local"
	// KindMinIO is a bucket on the MinIO server started for the run.
	KindMinIO = "minio"
)

// Flags is the warehouse part of a benchmark program's command line. The
// zero value asks for a fresh temporary local directory that Close removes.
type Flags struct {
	// Store is the warehouse location of --store (alias --dir): a URL with
	// a scheme, used as it is, or a local directory path; "" for a fresh
	// temporary directory.
	Store string
	// MinIO starts a MinIO server on loopback and uses a fresh bucket on it
	// (--minio); it excludes Store.
	MinIO bool
	// Keep keeps the temporary directory at Close and has it printed
	// (--keep); a given location is always kept, a MinIO bucket never.
	Keep bool

	// storeFlag is the name Store was last set by on the command line
	// ("store" or "dir"), for messages; "" means "store".
	storeFlag string
}

// Register defines the warehouse flags on fs, bound to f: --store (and its
// alias --dir, the name cmd/compactbench had) taking a URL or a directory,
// --minio and --keep. Call Check after fs.Parse.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.Var(storeValue{f, "store"}, "store", "warehouse `URL`: file:///dir, mem://, s3://bucket/prefix?..., gs://bucket/prefix, or a local directory path, created if missing (default: a fresh temporary directory, removed at the end unless --keep)")
	fs.Var(storeValue{f, "dir"}, "dir", "alias of --store: a local warehouse directory `path` (or URL)")
	fs.BoolVar(&f.MinIO, "minio", false, "start a MinIO server on 127.0.0.1 (package testenv) and use a fresh bucket on it")
	fs.BoolVar(&f.Keep, "keep", false, "keep the temporary warehouse and print its location")
}

// Check reports flags that exclude each other: --minio with --store (or
// --dir), as "--minio and --store exclude each other" (naming the flag the
// user gave) wrapping ErrConflict; nil otherwise.
func (f *Flags) Check() error {
	if f.MinIO && f.Store != "" {
		return fmt.Errorf("--minio and --%s %w", f.storeName(), ErrConflict)
	}
	return nil
}

// storeName is the flag name Store came from.
func (f *Flags) storeName() string {
	if f.storeFlag == "" {
		return "store"
	}
	return f.storeFlag
}

// storeValue is the flag.Value of --store and --dir: both set Flags.Store
// and remember which name did.
type storeValue struct {
	f    *Flags
	name string
}

// String returns the current Store ("" for the zero value flag.PrintDefaults
// makes).
func (v storeValue) String() string {
	if v.f == nil {
		return ""
	}
	return v.f.Store
}

// Set sets Store to s; it never fails.
func (v storeValue) Set(s string) error {
	v.f.Store, v.f.storeFlag = s, v.name
	return nil
}

// Warehouse is an open warehouse: its URL, FileIO and catalog, with the
// program's database created. Close it once.
type Warehouse struct {
	// URL is the warehouse URL the FileIO was opened with: "file://" plus an
	// absolute path for a temporary or given directory, the given URL as it
	// is, or the MinIO bucket's s3:// URL (with endpoint query).
	URL string
	// Kind is KindLocal, KindMinIO, or the scheme of a given URL other than
	// file ("mem", "s3", "gs").
	Kind string
	// TempDir is the temporary directory Open created; "" for a given
	// location or MinIO.
	TempDir string
	// FileIO is rooted at URL; Close closes it.
	FileIO *fileio.FileIO
	// Catalog is the filesystem catalog on FileIO.
	Catalog *catalog.Catalog

	program string
	keep    bool
	srv     *testenv.Server
}

// Open opens the warehouse f selects for program (the command name, used for
// the temporary directory's prefix "<program>-" and Close's message) and
// creates database in it if absent.
//
// Errors (without the program's name, which the caller adds) read
// "--minio: …" (wrapping testenv.ErrNoBinary when MinIO is not installed),
// "--store: …" or "--dir: …" (the directory cannot be created), "temporary
// warehouse: …", "open store: …" (fileio.Open, e.g. fileio.ErrInvalidURL) and
// "create database: …". On error nothing is left behind: a MinIO server is
// stopped and a temporary directory removed, even with Keep.
func Open(ctx context.Context, program string, f Flags, database string) (*Warehouse, error) {
	w, err := locate(ctx, program, f)
	if err != nil {
		return nil, err
	}
	w.program, w.keep = program, f.Keep
	fio, err := fileio.Open(ctx, w.URL)
	if err != nil {
		w.release(false)
		return nil, fmt.Errorf("open store: %w", err)
	}
	cat := catalog.New(fio)
	if err := cat.CreateDatabase(ctx, database, true); err != nil {
		_ = fio.Close()
		w.release(false)
		return nil, fmt.Errorf("create database: %w", err)
	}
	w.FileIO, w.Catalog = fio, cat
	return w, nil
}

// locate picks the warehouse location of f and starts or creates what it
// needs (MinIO, the temporary or given directory).
func locate(ctx context.Context, program string, f Flags) (*Warehouse, error) {
	switch {
	case f.MinIO:
		srv, err := testenv.StartMinIO()
		if err != nil {
			return nil, fmt.Errorf("--minio: %w", err)
		}
		url, err := srv.NewBucket(ctx)
		if err != nil {
			srv.Stop()
			return nil, fmt.Errorf("--minio: %w", err)
		}
		return &Warehouse{URL: url, Kind: KindMinIO, srv: srv}, nil
	case strings.Contains(f.Store, "://"):
		kind, _, _ := strings.Cut(f.Store, "://")
		if kind == "file" {
			kind = KindLocal
		}
		return &Warehouse{URL: f.Store, Kind: kind}, nil
	case f.Store != "":
		abs, err := filepath.Abs(f.Store)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", f.storeName(), err)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("--%s: %w", f.storeName(), err)
		}
		return &Warehouse{URL: "file://" + abs, Kind: KindLocal}, nil
	}
	dir, err := os.MkdirTemp("", program+"-")
	if err != nil {
		return nil, fmt.Errorf("temporary warehouse: %w", err)
	}
	return &Warehouse{URL: "file://" + dir, Kind: KindLocal, TempDir: dir}, nil
}

// Local reports whether the warehouse is on local disk or in memory (no
// network between the program and its files).
func (w *Warehouse) Local() bool {
	return w.Kind == KindLocal || w.Kind == "mem"
}

// Redacted returns URL without its query (endpoint and other client
// parameters, long) and with the password of its userinfo masked
// (fileio.Redact), for display.
func (w *Warehouse) Redacted() string {
	u, _, _ := strings.Cut(w.URL, "?")
	return fileio.Redact(u)
}

// Close closes the FileIO, stops the MinIO server, and removes the temporary
// directory unless Keep, in which case it writes "<program>: warehouse kept
// at <dir>" and a newline to log (skipped when log is nil). It returns the
// FileIO's and the removal's errors, joined.
func (w *Warehouse) Close(log io.Writer) error {
	err := w.FileIO.Close()
	if rerr := w.release(w.keep); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove temporary warehouse %s: %w", w.TempDir, rerr))
	}
	if w.keep && w.TempDir != "" && log != nil {
		fmt.Fprintf(log, "%s: warehouse kept at %s\n", w.program, w.TempDir)
	}
	return err
}

// release stops the MinIO server and removes the temporary directory unless
// keep.
func (w *Warehouse) release(keep bool) error {
	if w.srv != nil {
		w.srv.Stop()
	}
	if w.TempDir != "" && !keep {
		return os.RemoveAll(w.TempDir)
	}
	return nil
}
