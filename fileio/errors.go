package fileio

import (
	"errors"
	"fmt"
	"io/fs"

	"gocloud.dev/gcerrors"
)

var (
	// ErrNotExist means the file does not exist. It is io/fs.ErrNotExist, so
	// errors.Is(err, fs.ErrNotExist) holds as well.
	ErrNotExist = fs.ErrNotExist

	// ErrExist means CreateIfAbsent found an object already at the path. It
	// is io/fs.ErrExist.
	ErrExist = fs.ErrExist

	// ErrClosed means the FileIO or the File was used after Close. It is
	// io/fs.ErrClosed.
	ErrClosed = fs.ErrClosed

	// ErrInvalidURL means Open could not parse the URL or does not support
	// its scheme or form.
	ErrInvalidURL = errors.New("invalid file URL")

	// ErrInvalidPath means a path argument is empty where a file is needed,
	// starts or ends with '/', or contains empty, "." or ".." elements.
	ErrInvalidPath = errors.New("invalid path")

	// ErrInvalidRange means a read was asked for at a negative offset.
	ErrInvalidRange = errors.New("invalid range")
)

// wrapErr turns a store error of operation op on key into this package's
// error: not-found becomes ErrNotExist, other errors keep their chain (and so
// their gcerrors code).
func (f *FileIO) wrapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	loc := f.s.location(key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("fileio: %s %s: %w", op, loc, ErrNotExist)
	}
	return fmt.Errorf("fileio: %s %s: %w", op, loc, err)
}
