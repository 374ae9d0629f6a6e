package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/paimon-go/paimon/fileio/internal/driver"
	"github.com/paimon-go/paimon/fileio/internal/localblob"
)

// FileIO reads and writes the files below one root location. It is safe for
// concurrent use. It mirrors Java Paimon's org.apache.paimon.fs.FileIO.
//
// A FileIO returned by [Open] owns a gocloud.dev/blob bucket; [FileIO.Sub]
// views share it, along with the request counters, and [FileIO.Close] on any
// of them closes it for all.
type FileIO struct {
	s      *store
	prefix string // key prefix of the root: "" or ending in "/"
	err    error  // set by Sub for an invalid prefix; returned by every method
}

// store is the state shared by a FileIO and its Sub views.
type store struct {
	bucket *blob.Bucket
	// streams, when set, is the bucket that Create's streamed writes go to:
	// on S3 and Azure the same bucket through a client whose SDK retries each
	// request (a single PUT, or each part of a multipart upload) with its
	// buffered body, since fileio cannot replay a stream itself.
	streams *blob.Bucket
	urlRoot string   // scheme://host[/local/dir], without a trailing '/'
	query   string   // raw URL query, kept for URL()
	secrets []string // the secrets of the URL opened, masked in every error (maskError)
	retry   retryPolicy
	stats   counters
	// deleteHeads is set for s3, whose Delete is a HEAD plus a DELETE.
	deleteHeads bool
	// beforeCreate is the driver's BeforeWrite of CreateIfAbsent (nil:
	// none); GCS's turns its client's own retries off.
	beforeCreate func(as func(any) bool) error
	closed       atomic.Bool
}

// location returns the full location of key for error messages, without the
// URL query.
func (s *store) location(key string) string {
	if s.urlRoot == "file://" {
		return "file:///" + key
	}
	if key == "" {
		return s.urlRoot
	}
	return s.urlRoot + "/" + key
}

// FileInfo describes one entry of a listing.
type FileInfo struct {
	// Path is relative to the FileIO root, '/'-separated, without a trailing
	// '/' even for directories; it can be passed back to the FileIO.
	Path string
	// Size is the file size in bytes; 0 for directories.
	Size int64
	// ModTime is the last modification time; zero for directories.
	ModTime time.Time
	// IsDir marks a directory (a common prefix of files on object stores).
	IsDir bool
}

// Open opens the FileIO rooted at rawURL; see the package documentation for
// the supported forms. Nothing is read or written, so a missing local
// directory or an unreachable bucket shows up on first use. The returned
// FileIO should be closed with Close.
//
// Errors wrap ErrInvalidURL for an empty, malformed or unsupported URL, and
// the driver's error if the bucket cannot be opened (e.g. bad s3 parameters).
func Open(ctx context.Context, rawURL string) (*FileIO, error) {
	if rawURL == "" {
		return nil, fmt.Errorf("fileio: open %q: %w: empty", Redact(rawURL), ErrInvalidURL)
	}
	if !strings.Contains(rawURL, "://") && !strings.HasPrefix(rawURL, "file:") {
		abs, err := filepath.Abs(rawURL)
		if err != nil {
			return nil, fmt.Errorf("fileio: open %q: %w: %w", Redact(rawURL), ErrInvalidURL, err)
		}
		return openLocal(abs), nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the URL as given; keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fileio: open %q: %w: %w", Redact(rawURL), ErrInvalidURL, err)
	}
	bad := func(why string) error {
		return fmt.Errorf("fileio: open %q: %w: %s", Redact(rawURL), ErrInvalidURL, why)
	}
	prefix, err := cleanDir(u.Path)
	if err != nil {
		return nil, bad("bad path")
	}
	s := &store{query: u.RawQuery, secrets: secretsOf(rawURL), retry: remoteRetry()}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, bad("file URLs must have an empty host")
		}
		if u.RawQuery != "" {
			return nil, bad("file URLs take no query parameters")
		}
		if !strings.HasPrefix(u.Path, "/") {
			return nil, bad("file URLs need an absolute path")
		}
		return openLocal(filepath.FromSlash(u.Path)), nil
	case "mem":
		if u.Host != "" || u.RawQuery != "" {
			return nil, bad("mem URLs take no host or query")
		}
		s.bucket, s.urlRoot, s.retry = memblob.OpenBucket(nil), "mem://", noRetry()
	case "s3", "gs", "azblob":
		var d driver.Driver
		if u.Scheme != "s3" {
			var ok bool
			if d, ok = driver.Lookup(u.Scheme); !ok {
				return nil, bad(fmt.Sprintf("the %s:// driver is not linked: import _ %q", u.Scheme, driverPackages[u.Scheme]))
			}
		}
		if u.Host == "" {
			return nil, bad("missing bucket name")
		}
		if u.Scheme == "s3" {
			s.bucket, s.streams, err = openS3(ctx, u.Host, u.Query(), s.retry)
			s.deleteHeads = true
		} else {
			if u.Scheme == "azblob" {
				s.secrets = append(s.secrets, azureSecrets()...)
			}
			var bs driver.Buckets
			bs, err = d.Open(ctx, u.Host, u.Query(), driver.Retry{Attempts: s.retry.attempts, Base: s.retry.base, Max: s.retry.max})
			s.bucket, s.streams, s.beforeCreate = bs.Bucket, bs.Streams, bs.BeforeCreate
		}
		if err != nil {
			// gocloud's URL openers repeat the URL in their errors.
			return nil, fmt.Errorf("fileio: open %q: %w", Redact(rawURL), redactError(err, rawURL))
		}
		s.urlRoot = u.Scheme + "://" + u.Host
	default:
		return nil, bad("unsupported scheme " + u.Scheme)
	}
	return &FileIO{s: s, prefix: prefix}, nil
}

// ErrNoCredentials means a gs:// URL found no Google Cloud credentials, or
// an azblob:// URL no Azure storage account or credential.
var ErrNoCredentials = errors.New("no credentials")

// driverPackages names the package whose import makes Open serve a scheme
// whose SDK is optional (see package fileio/internal/driver).
var driverPackages = map[string]string{
	"gs":     "github.com/paimon-go/paimon/fileio/gcs",
	"azblob": "github.com/paimon-go/paimon/fileio/azure",
}

// openS3 opens an S3 bucket with an AWS SDK client configured from the URL
// query: use_path_style and disable_https, and every parameter of
// gocloud.dev/aws.V2ConfigFromURLParams (region, endpoint, profile, ...);
// others are an error. Unlike s3blob's own URL opener, the client does not
// retry by itself (so fileio's retries are the only ones and Stats counts
// every request), and does not log a debug line for each ranged GET. The
// second bucket returned is for streamed writes: its client retries each
// request as policy says (the SDK's standard retryer, which replays the
// buffered body of a PUT or of an upload part).
func openS3(ctx context.Context, bucket string, q url.Values, policy retryPolicy) (*blob.Bucket, *blob.Bucket, error) {
	var pathStyle, noHTTPS bool
	for key, dst := range map[string]*bool{"use_path_style": &pathStyle, "disable_https": &noHTTPS} {
		if v := q.Get(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %s=%q", ErrInvalidURL, key, v)
			}
			*dst = b
			q.Del(key)
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	open := func(retryer aws.Retryer) (*blob.Bucket, error) {
		client := s3.NewFromConfig(cfg, func(o *s3.Options) {
			o.UsePathStyle = pathStyle
			o.EndpointOptions.DisableHTTPS = noHTTPS
			o.Retryer = retryer
			o.DisableLogOutputChecksumValidationSkipped = true
		})
		return s3blob.OpenBucket(ctx, client, bucket, &s3blob.Options{
			RequestChecksumCalculation: cfg.RequestChecksumCalculation,
		})
	}
	plain, err := open(aws.NopRetryer{})
	if err != nil {
		return nil, nil, err
	}
	streams, err := open(retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = policy.attempts
		o.MaxBackoff = policy.max
		o.RateLimiter = ratelimit.None // no retry token bucket: every request may be retried
	}))
	if err != nil {
		plain.Close()
		return nil, nil, err
	}
	return plain, streams, nil
}

// openLocal returns the FileIO of the local directory dir (absolute).
func openLocal(dir string) *FileIO {
	dir = filepath.Clean(dir)
	s := &store{
		bucket:  localblob.OpenBucket(dir),
		urlRoot: "file://" + strings.TrimSuffix(filepath.ToSlash(dir), "/"),
		retry:   noRetry(),
	}
	return &FileIO{s: s}
}

// cleanDir validates a directory argument ("" for the root, a single trailing
// '/' and, for URL paths, a leading '/' tolerated) and returns it as a key
// prefix: "" or ending in '/'.
func cleanDir(dir string) (string, error) {
	dir = strings.TrimPrefix(strings.TrimSuffix(dir, "/"), "/")
	if dir == "" {
		return "", nil
	}
	if err := checkPath(dir); err != nil {
		return "", err
	}
	return dir + "/", nil
}

// checkPath validates a file path relative to the root.
func checkPath(p string) error {
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return ErrInvalidPath
	}
	for elem := range strings.SplitSeq(p, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return ErrInvalidPath
		}
	}
	return nil
}

// key returns the bucket key of the file path p, validating it.
func (f *FileIO) key(op, p string) (string, error) {
	if err := f.check(op, p); err != nil {
		return "", err
	}
	if err := checkPath(p); err != nil {
		return "", fmt.Errorf("fileio: %s %q: %w", op, p, err)
	}
	return f.prefix + p, nil
}

// dirKey returns the listing prefix ("" or ending in '/') of directory dir.
func (f *FileIO) dirKey(op, dir string) (string, error) {
	if err := f.check(op, dir); err != nil {
		return "", err
	}
	if strings.HasPrefix(dir, "/") {
		return "", fmt.Errorf("fileio: %s %q: %w", op, dir, ErrInvalidPath)
	}
	d, err := cleanDir(dir)
	if err != nil {
		return "", fmt.Errorf("fileio: %s %q: %w", op, dir, err)
	}
	return f.prefix + d, nil
}

// check returns the error every call on f fails with, if any.
func (f *FileIO) check(op, p string) error {
	if f.err != nil {
		return f.err
	}
	if f.s.closed.Load() {
		return fmt.Errorf("fileio: %s %s: %w", op, f.s.location(f.prefix+p), ErrClosed)
	}
	return nil
}

// Sub returns a view of f rooted at the directory prefix below f's root: its
// paths are relative to root/prefix. It shares f's bucket, counters and
// Close. An invalid prefix (see the package documentation) gives a view whose
// every method fails with ErrInvalidPath.
func (f *FileIO) Sub(prefix string) *FileIO {
	if f.err != nil {
		return f
	}
	d, err := cleanDir(prefix)
	if err != nil || strings.HasPrefix(prefix, "/") {
		return &FileIO{s: f.s, prefix: f.prefix, err: fmt.Errorf("fileio: sub %q: %w", prefix, ErrInvalidPath)}
	}
	return &FileIO{s: f.s, prefix: f.prefix + d}
}

// URL returns the URL of f's root, e.g. "file:///tmp/wh/db.db/t" or
// "s3://bucket/wh/t?endpoint=...", with its credentials masked by [Redact]
// (and without the userinfo of the URL given to Open), so that it can be
// printed. Opening it gives a FileIO on the same files (except for mem://,
// which is private to one FileIO), as fileio takes no credential from a URL.
func (f *FileIO) URL() string {
	u := f.s.location(strings.TrimSuffix(f.prefix, "/"))
	if f.s.query != "" {
		u += "?" + f.s.query
	}
	return Redact(u)
}

// Stats returns the number of store requests made so far through f's bucket,
// i.e. by the FileIO returned from Open and all its Sub views.
func (f *FileIO) Stats() Stats { return f.s.stats.snapshot() }

// Close closes the underlying bucket, for f and every view sharing it. Later
// calls fail with ErrClosed; closing twice returns nil.
func (f *FileIO) Close() error {
	if f.s.closed.Swap(true) {
		return nil
	}
	err := f.s.bucket.Close()
	if f.s.streams != nil {
		err = errors.Join(err, f.s.streams.Close())
	}
	if err != nil {
		return fmt.Errorf("fileio: close %s: %w", f.s.urlRoot, err)
	}
	return nil
}

// ReadFile returns the whole content of the file at path.
//
// Errors: ErrNotExist if there is no such file.
func (f *FileIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	key, err := f.key("read", path)
	if err != nil {
		return nil, err
	}
	var data []byte
	err = f.s.do(ctx, opGet, func(ctx context.Context) error {
		r, err := f.s.bucket.NewReader(ctx, key, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		buf := bytes.NewBuffer(make([]byte, 0, r.Size()+bytes.MinRead))
		if _, err := buf.ReadFrom(r); err != nil {
			return err
		}
		data = buf.Bytes()
		return nil
	})
	return data, f.wrapErr("read", key, err)
}

// NewRangeReader returns a reader of length bytes of the file at path,
// starting at offset; length -1 reads to the end of the file. A range that
// extends past the end of the file is cut short there, and one that starts at
// or past the end reads as empty, on every store. The caller must close the
// reader. Errors while reading the body are not retried.
//
// Errors: ErrNotExist if there is no such file; ErrInvalidRange if offset < 0.
func (f *FileIO) NewRangeReader(ctx context.Context, path string, offset, length int64) (io.ReadCloser, error) {
	key, err := f.key("read", path)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, fmt.Errorf("fileio: read %s at offset %d: %w", f.s.location(key), offset, ErrInvalidRange)
	}
	r, _, err := f.rangeReader(ctx, key, offset, length)
	return r, f.wrapErr("read", key, err)
}

// rangeReader opens a ranged read with retries, and returns the reader and
// the file size. A range starting past the end gives an empty reader: S3 and
// GCS answer such ranges with an error (HTTP 416), so after an error other
// than not-found the size is checked with a HEAD. A zero length is a HEAD.
func (f *FileIO) rangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, int64, error) {
	if length == 0 {
		attrs, err := f.attributes(ctx, key)
		if err != nil {
			return nil, 0, err
		}
		return io.NopCloser(bytes.NewReader(nil)), attrs.Size, nil
	}
	var (
		rc   io.ReadCloser
		size int64
	)
	// The body is read after do returns: the caller's ctx, not the
	// attempt's, must stay live for it.
	err := f.s.do(ctx, opGet, func(context.Context) error {
		var err error
		rc, size, err = f.openRange(ctx, key, offset, length)
		return err
	})
	return rc, size, err
}

// openRange is one attempt of rangeReader (length != 0), without retries.
func (f *FileIO) openRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, int64, error) {
	r, err := f.s.bucket.NewRangeReader(ctx, key, offset, length, nil)
	if err == nil {
		return r, r.Size(), nil
	}
	if notFound(err) || (offset == 0 && length < 0) || ctx.Err() != nil {
		return nil, 0, err
	}
	f.s.stats.add(opHead)
	attrs, aerr := f.s.bucket.Attributes(ctx, key)
	switch {
	case aerr != nil && notFound(aerr):
		return nil, 0, aerr
	case aerr == nil && offset >= attrs.Size:
		return io.NopCloser(bytes.NewReader(nil)), attrs.Size, nil
	}
	return nil, 0, err
}

// writerOptions are the options of every write: no content sniffing, a fixed
// content type.
func writerOptions(ifNotExist bool) *blob.WriterOptions {
	return &blob.WriterOptions{
		ContentType:                 "application/octet-stream",
		DisableContentTypeDetection: true,
		IfNotExist:                  ifNotExist,
	}
}

// WriteFile writes data as the whole content of the file at path, replacing
// any existing file. Readers see the old content or the new, never a mix or a
// partial file.
func (f *FileIO) WriteFile(ctx context.Context, path string, data []byte) error {
	key, err := f.key("write", path)
	if err != nil {
		return err
	}
	err = f.s.do(ctx, opPut, func(ctx context.Context) error {
		return f.s.bucket.WriteAll(ctx, key, data, writerOptions(false))
	})
	return f.wrapErr("write", key, err)
}

// CreateIfAbsent writes data as the file at path only if no file exists
// there; of several callers racing for the same path, in one process or many,
// exactly one succeeds. This is the snapshot commit primitive (Java
// FileIO.tryToWriteAtomic).
//
// If an attempt failed in a way that leaves it unknown whether the object was
// written (a lost response, or S3's 409 ConditionalRequestConflict), the next
// attempt's "exists" answer is checked by reading the object back: if it
// holds exactly data, the earlier attempt won and CreateIfAbsent returns nil;
// if it holds other bytes, another writer won (ErrExist). Callers must
// therefore make concurrent writers' data differ (a snapshot does: it names
// its commit user and identifier). The GCS client's own retries are turned
// off for these writes, so that every attempt is seen here.
//
// On S3 and GCS an attempt that gets no answer within a minute is given up
// and counts as one whose outcome is unknown.
//
// Errors: ErrExist if another writer's file takes the path; ErrOutcomeUnknown
// (wrapping the store's errors) if the file may have been written by this
// call and the check could not tell (the read-back failed, or every attempt
// failed after one whose outcome is unknown): the path may hold data, other
// bytes, or nothing. A first attempt refused outright (for example 403)
// wraps the store's error only.
func (f *FileIO) CreateIfAbsent(ctx context.Context, path string, data []byte) error {
	key, err := f.key("create", path)
	if err != nil {
		return err
	}
	exists := func(err error) bool {
		c := gcerrors.Code(err)
		return c == gcerrors.FailedPrecondition || c == gcerrors.AlreadyExists
	}
	opts := writerOptions(true)
	opts.BeforeWrite = f.s.beforeCreate
	ambiguous := false
	for attempt := 1; ; attempt++ {
		f.s.stats.add(opPut)
		actx, cancel := ctx, context.CancelFunc(func() {})
		if f.s.retry.createTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, f.s.retry.createTimeout)
		}
		err = f.s.bucket.WriteAll(actx, key, data, opts)
		// An attempt the store never answered (the request may have been
		// applied) is given up after createTimeout and retried.
		timedOut := err != nil && actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return nil
		}
		if exists(err) {
			if !ambiguous {
				return fmt.Errorf("fileio: create %s: %w", f.s.location(key), ErrExist)
			}
			ours, rerr := f.holds(ctx, key, data)
			switch {
			case rerr != nil:
				return fmt.Errorf("fileio: create %s: %w: the store answered that it exists after an attempt with a lost answer, and reading it back failed: %w",
					f.s.location(key), ErrOutcomeUnknown, f.wrapErr("read", key, rerr))
			case ours:
				return nil
			}
			return fmt.Errorf("fileio: create %s: %w", f.s.location(key), ErrExist)
		}
		// A transient failure (5xx, a network error) or one cut short by ctx
		// may have been applied by the store.
		maybe := ctx.Err() != nil || timedOut || transient(context.WithoutCancel(ctx), err)
		ambiguous = ambiguous || maybe
		if !maybe || attempt >= f.s.retry.attempts || f.s.retry.wait(ctx, attempt) != nil {
			if ambiguous {
				return fmt.Errorf("fileio: create %s: %w: %w", f.s.location(key), ErrOutcomeUnknown, f.wrapErr("create", key, err))
			}
			return f.wrapErr("create", key, err)
		}
	}
}

// holds reports whether the object key exists with exactly data as content;
// err is the read's error (ErrNotExist-wrapping when the object is absent).
func (f *FileIO) holds(ctx context.Context, key string, data []byte) (bool, error) {
	var got []byte
	err := f.s.do(ctx, opGet, func(ctx context.Context) error {
		var err error
		got, err = f.s.bucket.ReadAll(ctx, key)
		return err
	})
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, data), nil
}

// Create returns a writer for the file at path. The file appears, complete,
// when Close returns nil, replacing any existing file; until then neither the
// data nor a partial file is visible. To abandon the write, cancel ctx (or call
// the writer's Abort method, see [Aborter]) and then Close. fileio cannot
// replay a stream, so Create is not retried as a whole; on S3 and Azure each
// request of the upload (one PUT for a small file, otherwise each part or
// block and the completion of the upload) is retried with its buffered body
// by the SDK, with the attempts and backoff limit of the other requests.
// Other stores do not retry streamed writes.
func (f *FileIO) Create(ctx context.Context, path string) (io.WriteCloser, error) {
	key, err := f.key("write", path)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	b := f.s.bucket
	if f.s.streams != nil {
		b = f.s.streams
	}
	w, err := b.NewWriter(wctx, key, writerOptions(false))
	if err != nil {
		cancel()
		f.s.stats.add(opPut)
		return nil, f.wrapErr("write", key, err)
	}
	return &writer{f: f, key: key, w: w, cancel: cancel}, nil
}

// Aborter is implemented by the writer Create returns. Abort discards the
// data written so far; the file is left as it was before Create. Abort after
// Close, or Close after Abort, does nothing and returns nil.
type Aborter interface {
	Abort() error
}

type writer struct {
	f      *FileIO
	key    string
	w      *blob.Writer
	cancel context.CancelFunc
	done   atomic.Bool
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = w.f.wrapErr("write", w.key, err)
	}
	return n, err
}

func (w *writer) Close() error {
	if w.done.Swap(true) {
		return nil
	}
	w.f.s.stats.add(opPut)
	err := w.w.Close()
	w.cancel()
	return w.f.wrapErr("write", w.key, err)
}

func (w *writer) Abort() error {
	if w.done.Swap(true) {
		return nil
	}
	w.cancel()
	_ = w.w.Close() // fails with context.Canceled and publishes nothing
	return nil
}

// attributes returns the attributes of the file key with retries.
func (f *FileIO) attributes(ctx context.Context, key string) (*blob.Attributes, error) {
	var attrs *blob.Attributes
	err := f.s.do(ctx, opHead, func(ctx context.Context) error {
		var err error
		attrs, err = f.s.bucket.Attributes(ctx, key)
		return err
	})
	return attrs, err
}

// Exists reports whether a file exists at path. Directories are not files:
// Exists of a directory reports false.
func (f *FileIO) Exists(ctx context.Context, path string) (bool, error) {
	key, err := f.key("stat", path)
	if err != nil {
		return false, err
	}
	_, err = f.attributes(ctx, key)
	if notFound(err) {
		return false, nil
	}
	return err == nil, f.wrapErr("stat", key, err)
}

// Size returns the size in bytes of the file at path.
//
// Errors: ErrNotExist if there is no such file.
func (f *FileIO) Size(ctx context.Context, path string) (int64, error) {
	key, err := f.key("stat", path)
	if err != nil {
		return 0, err
	}
	attrs, err := f.attributes(ctx, key)
	if err != nil {
		return 0, f.wrapErr("stat", key, err)
	}
	return attrs.Size, nil
}

// Delete removes the file at path. On S3 this is a HEAD (to detect a missing
// file) and a DELETE, counted as both in Stats.
//
// Errors: ErrNotExist if there is no such file.
func (f *FileIO) Delete(ctx context.Context, path string) error {
	key, err := f.key("delete", path)
	if err != nil {
		return err
	}
	err = f.s.do(ctx, opDelete, func(ctx context.Context) error {
		if f.s.deleteHeads {
			f.s.stats.add(opHead)
		}
		return f.s.bucket.Delete(ctx, key)
	})
	return f.wrapErr("delete", key, err)
}

// List returns the entries directly inside directory dir ("" for the root),
// sorted by path: files, and subdirectories (IsDir) that contain files. A
// missing directory has no entries. Paths are relative to f's root, e.g.
// List(ctx, "snapshot") returns "snapshot/snapshot-1", ...
func (f *FileIO) List(ctx context.Context, dir string) ([]FileInfo, error) {
	prefix, err := f.dirKey("list", dir)
	if err != nil {
		return nil, err
	}
	return f.list(ctx, prefix, "/")
}

// ListTemp returns the temporary files of in-progress or interrupted writes
// directly inside directory dir, sorted by path: on local disk every write
// goes to a hidden ".<name>.<random>.tmp" file next to its target that is
// renamed or linked into place, and List never shows those; a crash leaves
// them behind for orphan cleaning (Java's LocalFileIO lists hidden files
// like any other; its own temporaries are ".<name>.<UUID>.tmp"). Other
// stores write objects in one request and have no temporary files; ListTemp
// returns none there (objects named like temporaries are listed by List).
// Errors are those of List.
func (f *FileIO) ListTemp(ctx context.Context, dir string) ([]FileInfo, error) {
	prefix, err := f.dirKey("list", dir)
	if err != nil || !strings.HasPrefix(f.s.urlRoot, "file://") {
		return nil, err
	}
	return f.listWith(ctx, prefix, "/", func(as func(any) bool) error {
		var lo *localblob.ListOptions
		if as(&lo) {
			lo.Temps = true
		}
		return nil
	})
}

// ListRecursive returns every file below directory dir ("" for the root), at
// any depth, sorted by path; directories themselves are not listed.
func (f *FileIO) ListRecursive(ctx context.Context, dir string) ([]FileInfo, error) {
	prefix, err := f.dirKey("list", dir)
	if err != nil {
		return nil, err
	}
	return f.list(ctx, prefix, "")
}

// listPageSize is the page size of listings, S3's maximum.
const listPageSize = 1000

func (f *FileIO) list(ctx context.Context, prefix, delim string) ([]FileInfo, error) {
	return f.listWith(ctx, prefix, delim, nil)
}

// listWith lists with a driver-specific BeforeList (nil: none).
func (f *FileIO) listWith(ctx context.Context, prefix, delim string, before func(func(any) bool) error) ([]FileInfo, error) {
	var out []FileInfo
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: delim, BeforeList: before}
	token := blob.FirstPageToken
	for len(token) > 0 {
		var page []*blob.ListObject
		var next []byte
		err := f.s.do(ctx, opList, func(ctx context.Context) error {
			var err error
			page, next, err = f.s.bucket.ListPage(ctx, token, listPageSize, opts)
			return err
		})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, f.wrapErr("list", prefix, err)
		}
		for _, o := range page {
			rel := strings.TrimSuffix(strings.TrimPrefix(o.Key, f.prefix), "/")
			if rel == "" || !o.IsDir && strings.HasSuffix(o.Key, "/") {
				continue // directory marker objects written by other tools
			}
			out = append(out, FileInfo{Path: rel, Size: o.Size, ModTime: o.ModTime, IsDir: o.IsDir})
		}
		token = next
	}
	return out, nil
}
