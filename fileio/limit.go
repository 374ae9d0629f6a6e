package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge means ReadFileLimit found a file larger than the caller's limit; the file was not
// read.
var ErrTooLarge = errors.New("file larger than the reader's limit")

// ReadFileLimit is ReadFile for a file that may hold at most limit bytes (a metadata file whose
// format has a sane size): a larger file is refused from the size the store reports with the
// response, before its body is read, and never more than limit+1 bytes are read.
//
// Errors: ErrNotExist if there is no such file; ErrTooLarge (naming the file, its size and
// limit) if it is larger than limit bytes.
func (f *FileIO) ReadFileLimit(ctx context.Context, path string, limit int64) ([]byte, error) {
	key, err := f.key("read", path)
	if err != nil {
		return nil, err
	}
	var (
		data []byte
		size int64
	)
	err = f.s.do(ctx, opGet, func(ctx context.Context) error {
		r, err := f.s.bucket.NewReader(ctx, key, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		data, size = nil, r.Size()
		if size > limit {
			return nil
		}
		buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
		if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
			return err
		}
		data = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, f.wrapErr("read", key, err)
	}
	if size > limit || int64(len(data)) > limit {
		return nil, fmt.Errorf("fileio: read %s: %w: %d bytes, limit %d", f.s.location(key), ErrTooLarge,
			max(size, int64(len(data))), limit)
	}
	return data, nil
}

// FileReader reads whole files; *FileIO is one. Packages that take a small file-system
// interface (snapshot, schema) pass theirs to ReadLimit.
type FileReader interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// ReadLimit reads path from r, at most limit bytes: through ReadFileLimit when r has it (as
// *FileIO does: a larger file is refused unread), otherwise with ReadFile and a check of the
// size read.
//
// Errors: those of r; ErrTooLarge, naming path, if the file is larger than limit bytes.
func ReadLimit(ctx context.Context, r FileReader, path string, limit int64) ([]byte, error) {
	if l, ok := r.(interface {
		ReadFileLimit(ctx context.Context, path string, limit int64) ([]byte, error)
	}); ok {
		return l.ReadFileLimit(ctx, path, limit)
	}
	data, err := r.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("fileio: read %s: %w: %d bytes, limit %d", path, ErrTooLarge, len(data), limit)
	}
	return data, nil
}
