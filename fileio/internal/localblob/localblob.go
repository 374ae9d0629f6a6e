// Package localblob is a gocloud.dev/blob driver for a directory on the local
// file system, written for Paimon tables.
//
// It differs from gocloud.dev/blob/fileblob in the three ways a table format
// needs:
//
//   - Conditional writes (driver.WriterOptions.IfNotExist) are atomic across
//     processes: the object is written to a temporary file in the target
//     directory, synced, and published with link(2) (or renameat2 with
//     RENAME_NOREPLACE where hard links are unsupported), which fails if the
//     target exists. This is the snapshot commit primitive, the equivalent of
//     Java Paimon's LocalFileIO.tryAtomicWrite / rename-without-overwrite.
//   - No ".attrs" sidecar files are ever written; attributes other than size and
//     modification time are not stored.
//   - Temporary files live in the target directory (never os.TempDir(), so the
//     final rename never crosses a mount) and are named
//     "." + base + "." + random + ".tmp". They are hidden from listings, and a
//     leading dot makes Java Paimon and pypaimon ignore them as hidden files.
//
// Keys map to paths below the root directory by replacing '/' with the OS
// separator. Directories are created on write and are not removed on delete,
// matching Java's LocalFileIO.
package localblob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

const contentType = "application/octet-stream"

var (
	// errInvalidKey is returned for keys that do not name a file below the root.
	errInvalidKey = errors.New("localblob: invalid key")
	// errExist is returned by a conditional write whose target already exists.
	errExist = fmt.Errorf("localblob: %w", fs.ErrExist)
	// errUnimplemented is returned for driver features this driver lacks.
	errUnimplemented = errors.New("localblob: not implemented")
	// errIsDir is returned when a key names a directory rather than a file.
	errIsDir = fmt.Errorf("localblob: is a directory: %w", fs.ErrNotExist)
)

// OpenBucket returns a bucket rooted at the directory dir, which need not
// exist yet (it is created by the first write). dir should be absolute.
func OpenBucket(dir string) *blob.Bucket {
	return blob.NewBucket(New(dir))
}

// New returns the driver behind OpenBucket, for wrapping (e.g. by
// fault-injecting test drivers).
func New(dir string) driver.Bucket {
	return &bucket{root: filepath.Clean(dir)}
}

// IsTempName reports whether a file name (one path element) has the form this
// driver gives its temporary files: a leading '.' and a ".tmp" suffix.
func IsTempName(name string) bool {
	return len(name) > len(".x.tmp") && name[0] == '.' && strings.HasSuffix(name, ".tmp")
}

// ListOptions are the driver-specific options of a listing, reached from
// blob.ListOptions.BeforeList: asFunc(&p) with p a *ListOptions sets p.
type ListOptions struct {
	// Temps lists the temporary files of in-progress or interrupted writes
	// (IsTempName) instead of the other files.
	Temps bool
}

type bucket struct {
	root string
}

var _ driver.Bucket = (*bucket)(nil)

// path returns the file system path of key, rejecting keys that are empty,
// absolute, contain empty, "." or ".." elements, or contain NUL or '\'.
func (b *bucket) path(key string) (string, error) {
	if key == "" || strings.ContainsAny(key, "\x00\\") {
		return "", fmt.Errorf("%w %q", errInvalidKey, key)
	}
	for elem := range strings.SplitSeq(key, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return "", fmt.Errorf("%w %q", errInvalidKey, key)
		}
	}
	return filepath.Join(b.root, filepath.FromSlash(key)), nil
}

// ErrorCode implements driver.Bucket.
func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode {
	var errno syscall.Errno
	switch {
	case errors.Is(err, errExist):
		return gcerrors.FailedPrecondition
	case errors.Is(err, fs.ErrNotExist), errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return gcerrors.NotFound
	case errors.Is(err, fs.ErrPermission):
		return gcerrors.PermissionDenied
	case errors.Is(err, errInvalidKey):
		return gcerrors.InvalidArgument
	case errors.Is(err, errUnimplemented):
		return gcerrors.Unimplemented
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	case errors.As(err, &errno) && (errno == syscall.ENOSPC || errno == syscall.EDQUOT):
		return gcerrors.ResourceExhausted
	}
	return gcerrors.Unknown
}

// As implements driver.Bucket; no driver-specific types are exposed.
func (b *bucket) As(any) bool { return false }

// ErrorAs implements driver.Bucket; errors can be converted to *fs.PathError.
func (b *bucket) ErrorAs(err error, i any) bool {
	if p, ok := i.(**fs.PathError); ok {
		return errors.As(err, p)
	}
	return false
}

// stat returns the file info of key, or an error wrapping fs.ErrNotExist if
// key is missing or names a directory.
func (b *bucket) stat(key string) (string, fs.FileInfo, error) {
	p, err := b.path(key)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", nil, err
	}
	if fi.IsDir() {
		return "", nil, fmt.Errorf("%w: %s", errIsDir, p)
	}
	return p, fi, nil
}

// Attributes implements driver.Bucket. Only Size, ModTime, ContentType
// ("application/octet-stream") and an ETag derived from both are set.
func (b *bucket) Attributes(_ context.Context, key string) (*driver.Attributes, error) {
	_, fi, err := b.stat(key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{
		ContentType: contentType,
		ModTime:     fi.ModTime(),
		Size:        fi.Size(),
		ETag:        fmt.Sprintf("\"%x-%x\"", fi.ModTime().UnixNano(), fi.Size()),
	}, nil
}

// ListPaged implements driver.Bucket for an empty delimiter (a recursive
// listing of files) and for the delimiter "/" (one level; subdirectories are
// returned once, as IsDir objects whose key ends in "/"). Temporary files of
// in-progress writes are never listed. The page token is the last key returned.
func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	if opts.Delimiter != "" && opts.Delimiter != "/" {
		return nil, fmt.Errorf("%w: delimiter %q", errUnimplemented, opts.Delimiter)
	}
	lo := &ListOptions{}
	if opts.BeforeList != nil {
		err := opts.BeforeList(func(i any) bool {
			p, ok := i.(**ListOptions)
			if ok {
				*p = lo
			}
			return ok
		})
		if err != nil {
			return nil, err
		}
	}
	// The directory that holds every key with the prefix, and the name prefix
	// within it.
	dirKey, namePrefix := "", opts.Prefix
	if i := strings.LastIndexByte(opts.Prefix, '/'); i >= 0 {
		dirKey, namePrefix = opts.Prefix[:i+1], opts.Prefix[i+1:]
	}
	var objs []*driver.ListObject
	if err := b.list(ctx, dirKey, namePrefix, opts.Delimiter == "", lo.Temps, &objs); err != nil {
		return nil, err
	}
	slices.SortFunc(objs, func(x, y *driver.ListObject) int { return strings.Compare(x.Key, y.Key) })
	if len(opts.PageToken) > 0 {
		after := string(opts.PageToken)
		i, _ := slices.BinarySearchFunc(objs, after, func(o *driver.ListObject, k string) int {
			return strings.Compare(o.Key, k)
		})
		for i < len(objs) && objs[i].Key <= after {
			i++
		}
		objs = objs[i:]
	}
	page := &driver.ListPage{Objects: objs}
	if opts.PageSize > 0 && len(objs) > opts.PageSize {
		page.Objects = objs[:opts.PageSize]
		page.NextPageToken = []byte(page.Objects[opts.PageSize-1].Key)
	}
	return page, nil
}

// list appends the entries of directory dirKey ("" or ending in "/") whose
// names start with namePrefix; with recursive it descends into directories
// and lists files only; with temps it lists temporary files only, and no
// directories.
func (b *bucket) list(ctx context.Context, dirKey, namePrefix string, recursive, temps bool, out *[]*driver.ListObject) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := b.root
	if dirKey != "" {
		dir = filepath.Join(b.root, filepath.FromSlash(strings.TrimSuffix(dirKey, "/")))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		var errno syscall.Errno
		if errors.Is(err, fs.ErrNotExist) || errors.As(err, &errno) && errno == syscall.ENOTDIR {
			return nil // a missing "directory" lists as empty, as on object stores
		}
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, namePrefix) || IsTempName(name) != temps {
			continue
		}
		key := dirKey + name
		fi, err := os.Stat(filepath.Join(dir, name)) // follows symbolic links
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since ReadDir, or a dangling link
		}
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir() && recursive:
			if err := b.list(ctx, key+"/", "", true, temps, out); err != nil {
				return err
			}
		case fi.IsDir() && !temps:
			*out = append(*out, &driver.ListObject{Key: key + "/", IsDir: true})
		case fi.Mode().IsRegular():
			*out = append(*out, &driver.ListObject{Key: key, ModTime: fi.ModTime(), Size: fi.Size()})
		}
	}
	return nil
}

// NewRangeReader implements driver.Bucket. A range that starts at or past the
// end of the file reads as empty.
func (b *bucket) NewRangeReader(_ context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = fmt.Errorf("%w: %s", errIsDir, p)
	}
	if err == nil && opts.BeforeRead != nil {
		err = opts.BeforeRead(func(any) bool { return false })
	}
	if err == nil && offset > 0 {
		_, err = f.Seek(offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r := io.Reader(f)
	if length >= 0 {
		r = io.LimitReader(f, length)
	}
	return &reader{r: r, f: f, attrs: driver.ReaderAttributes{
		ContentType: contentType,
		ModTime:     fi.ModTime(),
		Size:        fi.Size(),
	}}, nil
}

type reader struct {
	r     io.Reader
	f     *os.File
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *reader) Close() error                         { return r.f.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *reader) As(any) bool                          { return false }

// NewTypedWriter implements driver.Bucket. Data goes to a temporary file in
// the key's directory; Close syncs it and publishes it with rename (or, with
// opts.IfNotExist, with a link that fails if the key exists). If ctx is done
// before Close, Close discards the data and returns ctx.Err().
func (b *bucket) NewTypedWriter(ctx context.Context, key, _ string, opts *driver.WriterOptions) (driver.Writer, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	f, err := createTemp(p)
	if err != nil {
		return nil, err
	}
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(func(any) bool { return false }); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return &writer{ctx: ctx, f: f, path: p, noReplace: opts.IfNotExist}, nil
}

// createTemp creates the directory of path p and an empty temporary file in
// it named "." + base + "." + 16 hex digits + ".tmp".
func createTemp(p string) (*os.File, error) {
	dir, base := filepath.Split(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if len(base) > 200 { // stay below NAME_MAX (255) with the added 22 bytes
		base = base[:200]
	}
	for {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:]) // never fails (crypto/rand)
		tmp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp")
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
}

type writer struct {
	ctx       context.Context
	f         *os.File
	path      string
	noReplace bool
}

func (w *writer) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *writer) Close() error {
	tmp := w.f.Name()
	defer os.Remove(tmp) // a no-op after a successful rename
	err := w.ctx.Err()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !w.noReplace {
		return os.Rename(tmp, w.path)
	}
	return publishNoReplace(tmp, w.path)
}

// publishNoReplace makes the file tmp visible as path unless path exists, in
// which case it returns errExist. link(2) is atomic on local and network file
// systems; renameat2(RENAME_NOREPLACE) is the fallback where links are not
// supported.
func publishNoReplace(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return existOr(err, path)
	}
	if rerr := renameNoReplace(tmp, path); !errors.Is(rerr, errUnimplemented) {
		return existOr(rerr, path)
	}
	return err
}

func existOr(err error, path string) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s", errExist, path)
	}
	return err
}

// Copy implements driver.Bucket by reading src and writing dst atomically.
func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, _ *driver.CopyOptions) error {
	r, err := b.NewRangeReader(ctx, srcKey, 0, -1, &driver.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.NewTypedWriter(wctx, dstKey, contentType, &driver.WriterOptions{})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // Close then discards the partial copy
		w.Close()
		return err
	}
	return w.Close()
}

// Delete implements driver.Bucket. A key naming a directory is not found.
func (b *bucket) Delete(_ context.Context, key string, opts *driver.DeleteOptions) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%w: %s", errIsDir, p)
	}
	if opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(func(any) bool { return false }); err != nil {
			return err
		}
	}
	return os.Remove(p)
}

// SignedURL implements driver.Bucket; it is not supported.
func (b *bucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", errUnimplemented
}

// Close implements driver.Bucket.
func (b *bucket) Close() error { return nil }
