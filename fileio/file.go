package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// File is an open file for random access, as Parquet readers need (parquet-go
// takes an io.ReaderAt and a size; arrow-go's parquet reader an io.ReaderAt
// and io.Seeker). It mirrors Java Paimon's SeekableInputStream.
//
// ReadAt is safe for concurrent use; Read and Seek share one offset and
// should be used by one goroutine at a time.
type File interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
	// Size returns the file size in bytes, as of Open.
	Size() int64
}

// Caching of File reads. Open reads the first chunkSize bytes, which holds
// all of a small file; for a larger file the last chunkSize bytes are read
// and kept on the first read that falls entirely among them (Parquet and ORC
// footers), and all other reads are exact ranged reads.
const chunkSize = 64 << 10

// Open opens the file at path for random access with one ranged GET of its
// first 64 KiB, which also tells its size: a file of at most 64 KiB costs one
// request in all. ctx is used for that request and for every later read
// through the File. The caller must Close the File.
//
// Errors: ErrNotExist if there is no such file. Reads fail with ErrClosed
// after Close and ErrInvalidRange at a negative offset.
func (f *FileIO) Open(ctx context.Context, path string) (File, error) {
	key, err := f.key("open", path)
	if err != nil {
		return nil, err
	}
	var head []byte
	var size int64
	err = f.s.do(ctx, opGet, func(ctx context.Context) error {
		r, sz, err := f.openRange(ctx, key, 0, chunkSize)
		if err != nil {
			return err
		}
		defer r.Close()
		head, err = io.ReadAll(r)
		size = sz
		return err
	})
	if err != nil {
		return nil, f.wrapErr("open", key, err)
	}
	if int64(len(head)) != min(size, chunkSize) {
		return nil, fmt.Errorf("fileio: open %s: read %d bytes of the first %d: %w",
			f.s.location(key), len(head), min(size, chunkSize), io.ErrUnexpectedEOF)
	}
	return &file{ctx: ctx, fio: f, key: key, size: size, head: head}, nil
}

type file struct {
	ctx  context.Context
	fio  *FileIO
	key  string
	size int64
	head []byte // content [0, len(head)); immutable

	closed atomic.Bool

	tailMu sync.Mutex
	tail   []byte // content [size-chunkSize, size), loaded on demand

	offMu sync.Mutex
	off   int64 // offset of Read and Seek
}

func (r *file) Size() int64 { return r.size }

func (r *file) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("fileio: read %s at offset %d: %w", r.fio.s.location(r.key), off, ErrInvalidRange)
	}
	if r.closed.Load() {
		return 0, fmt.Errorf("fileio: read %s: %w", r.fio.s.location(r.key), ErrClosed)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.size-off))
	if err := r.fill(p[:n], off); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// fill reads exactly len(p) bytes at off, which lie within the file.
func (r *file) fill(p []byte, off int64) error {
	end := off + int64(len(p))
	if end <= int64(len(r.head)) {
		copy(p, r.head[off:])
		return nil
	}
	if tailStart := r.size - chunkSize; off >= tailStart {
		tail, err := r.loadTail()
		if err != nil {
			return err
		}
		copy(p, tail[off-tailStart:])
		return nil
	}
	return r.readRange(p, off)
}

// loadTail returns the last chunkSize bytes, reading them on first use.
func (r *file) loadTail() ([]byte, error) {
	r.tailMu.Lock()
	defer r.tailMu.Unlock()
	if r.tail == nil {
		tail := make([]byte, chunkSize)
		if err := r.readRange(tail, r.size-chunkSize); err != nil {
			return nil, err
		}
		r.tail = tail
	}
	return r.tail, nil
}

// readRange reads exactly len(p) bytes at off with one ranged GET, retried.
func (r *file) readRange(p []byte, off int64) error {
	err := r.fio.s.do(r.ctx, opGet, func(ctx context.Context) error {
		rc, _, err := r.fio.openRange(ctx, r.key, off, int64(len(p)))
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.ReadFull(rc, p)
		return err
	})
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // the file shrank since Open
	}
	return r.fio.wrapErr("read", r.key, err)
}

func (r *file) Read(p []byte) (int, error) {
	r.offMu.Lock()
	defer r.offMu.Unlock()
	n, err := r.ReadAt(p, r.off)
	if n > 0 && err == io.EOF {
		err = nil
	}
	r.off += int64(n)
	return n, err
}

func (r *file) Seek(offset int64, whence int) (int64, error) {
	r.offMu.Lock()
	defer r.offMu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, fmt.Errorf("fileio: seek %s: whence %d: %w", r.fio.s.location(r.key), whence, ErrInvalidRange)
	}
	if offset < 0 {
		return 0, fmt.Errorf("fileio: seek %s to %d: %w", r.fio.s.location(r.key), offset, ErrInvalidRange)
	}
	r.off = offset
	return offset, nil
}

// Close marks the file closed; the cached chunks are kept until the file is
// garbage, so that reads racing with Close never see a half-dropped cache.
func (r *file) Close() error {
	r.closed.Store(true)
	return nil
}
