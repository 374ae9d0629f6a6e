package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/aws/smithy-go"
	"gocloud.dev/gcerrors"

	"github.com/paimon-go/paimon/fileio/internal/driver"
)

var (
	// ErrNotExist means the file does not exist. It is io/fs.ErrNotExist, so
	// errors.Is(err, fs.ErrNotExist) holds as well.
	ErrNotExist = fs.ErrNotExist

	// ErrExist means CreateIfAbsent found an object already at the path. It
	// is io/fs.ErrExist.
	ErrExist = fs.ErrExist

	// ErrOutcomeUnknown means CreateIfAbsent cannot tell whether it created
	// the file: an attempt failed in a way that may have left the file
	// written (a lost answer, S3's 409 ConditionalRequestConflict, a
	// transient error on the last attempt), and neither a later attempt nor
	// reading the file back settled it (the read failed, or the retries ran
	// out). The file may hold the caller's data, another writer's, or be
	// absent; a caller must not act as if it lost a race (and delete what
	// the file could refer to) nor as if it won.
	ErrOutcomeUnknown = errors.New("create outcome unknown")

	// ErrClosed means the FileIO or the File was used after Close. It is
	// io/fs.ErrClosed.
	ErrClosed = fs.ErrClosed

	// ErrNoBucket means the bucket or container of the URL does not exist
	// (S3 NoSuchBucket, Azure ContainerNotFound). It wraps ErrNotExist.
	ErrNoBucket = fmt.Errorf("%w: the bucket or container does not exist", fs.ErrNotExist)

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
	// Drivers repeat what the URL configured (an endpoint with a password
	// that fails to parse only shows on the first request): mask it.
	err = maskError(err, f.s.secrets)
	if r, ok := driver.ResponseOf(err); ok && r.Text != "" {
		// The Azure SDK's text is the whole HTTP exchange (request line,
		// headers, XML body): keep its status and error code.
		err = &redactedError{err: err, msg: r.Text}
	}
	if code := bucketMissing(err); code != "" {
		return fmt.Errorf("fileio: %s %s: %w (%s)", op, loc, ErrNoBucket, code)
	}
	if notFound(err) {
		return fmt.Errorf("fileio: %s %s: %w", op, loc, ErrNotExist)
	}
	if status, ok := httpStatus(err); (ok && (status == http.StatusForbidden || status == http.StatusUnauthorized)) ||
		gcerrors.Code(err) == gcerrors.PermissionDenied {
		return fmt.Errorf("fileio: %s %s: %w: %w", op, loc, fs.ErrPermission, err)
	}
	if gcerrors.Code(err) == gcerrors.NotFound { // a denial gcsblob calls NotFound
		return fmt.Errorf("fileio: %s %s: %w: %w", op, loc, fs.ErrPermission, err)
	}
	return fmt.Errorf("fileio: %s %s: %w", op, loc, err)
}

// notFound reports whether err says that the object does not exist.
// gocloud's gcsblob reports HTTP 403 as NotFound too (GCS denies access to
// objects that may not exist); a denial proves nothing about the object
// (taking it as absence made an expiration think a snapshot file it could
// not delete was gone, and a create's check think the create failed), so
// it is not taken as absence.
func notFound(err error) bool {
	if gcerrors.Code(err) != gcerrors.NotFound {
		return false
	}
	status, ok := httpStatus(err)
	return !ok || status != http.StatusForbidden
}

// bucketMissing returns the store's error code when err says the bucket
// or container itself does not exist (S3 NoSuchBucket, Azure
// ContainerNotFound), else "": then nothing below it exists either, and
// the message should say why.
func bucketMissing(err error) string {
	if r, ok := driver.ResponseOf(err); ok && r.NoBucket {
		return r.Code
	}
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket" {
		return api.ErrorCode()
	}
	return ""
}
