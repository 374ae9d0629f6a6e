package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"

	storedriver "github.com/paimon-go/paimon/fileio/internal/driver"
	"github.com/paimon-go/paimon/fileio/internal/localblob"
)

// errInjected is the transient failure the faulty driver injects; it has no
// HTTP status and the gcerrors code Unknown, like a reset connection.
var errInjected = errors.New("injected transient failure")

// faulty wraps a driver and fails chosen operations a set number of times.
type faulty struct {
	driver.Bucket
	mu sync.Mutex
	// fail counts the failures still to inject per operation: "get", "put",
	// "attrs", "list", "delete".
	fail map[string]int
	// failErr is the error injected; errInjected if nil.
	failErr error
	// opErr, when it names the operation, overrides failErr for it.
	opErr map[string]error
	// putLands makes an injected put failure happen after the object was
	// written, like a lost response.
	putLands bool
	// putHangs, with putLands, makes the failed put wait for its context
	// to end instead of failing: a store that applied it and never answers.
	putHangs bool
	// beforeFailedPut runs before an injected put failure (to let another
	// writer win meanwhile).
	beforeFailedPut func()
	// strictRange makes ranged reads starting at or past the end fail like S3
	// (HTTP 416).
	strictRange bool
}

func (d *faulty) take(op string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail[op] > 0 {
		d.fail[op]--
		if err := d.opErr[op]; err != nil {
			return err
		}
		if d.failErr != nil {
			return d.failErr
		}
		return errInjected
	}
	return nil
}

func (d *faulty) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.Is(err, errInjected) {
		return gcerrors.Unknown
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && (gerr.Code == http.StatusForbidden || gerr.Code == http.StatusNotFound) {
		return gcerrors.NotFound // as gcsblob answers
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return gcerrors.Unknown // what s3blob answers for 4xx/5xx it does not know
	}
	return d.Bucket.ErrorCode(err)
}

func (d *faulty) NewRangeReader(ctx context.Context, key string, off, n int64, o *driver.ReaderOptions) (driver.Reader, error) {
	if err := d.take("get"); err != nil {
		return nil, err
	}
	if d.strictRange && (off > 0 || n >= 0) {
		a, err := d.Bucket.Attributes(ctx, key)
		if err == nil && off >= a.Size {
			return nil, httpError(http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
		}
	}
	return d.Bucket.NewRangeReader(ctx, key, off, n, o)
}

func (d *faulty) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	if err := d.take("attrs"); err != nil {
		return nil, err
	}
	return d.Bucket.Attributes(ctx, key)
}

func (d *faulty) ListPaged(ctx context.Context, o *driver.ListOptions) (*driver.ListPage, error) {
	if err := d.take("list"); err != nil {
		return nil, err
	}
	return d.Bucket.ListPaged(ctx, o)
}

func (d *faulty) Delete(ctx context.Context, key string, o *driver.DeleteOptions) error {
	if err := d.take("delete"); err != nil {
		return err
	}
	return d.Bucket.Delete(ctx, key, o)
}

func (d *faulty) NewTypedWriter(ctx context.Context, key, ct string, o *driver.WriterOptions) (driver.Writer, error) {
	err := d.take("put")
	if err == nil {
		return d.Bucket.NewTypedWriter(ctx, key, ct, o)
	}
	if d.putLands {
		w, werr := d.Bucket.NewTypedWriter(ctx, key, ct, o)
		if werr != nil {
			return nil, werr
		}
		if d.putHangs {
			return &failingWriter{Writer: w, err: err, hang: ctx}, nil
		}
		return &failingWriter{Writer: w, err: err}, nil
	}
	// Write nowhere: a cancelled inner writer publishes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	w, werr := d.Bucket.NewTypedWriter(cctx, key, ct, o)
	if werr != nil {
		return nil, werr
	}
	if d.beforeFailedPut != nil {
		d.beforeFailedPut()
	}
	return &failingWriter{Writer: w, err: err}, nil
}

// failingWriter closes its inner writer and then reports err, or, with
// hang, waits for hang to end and reports its error.
type failingWriter struct {
	driver.Writer
	err  error
	hang context.Context
}

func (w *failingWriter) Close() error {
	w.Writer.Close()
	if w.hang != nil {
		<-w.hang.Done()
		return w.hang.Err()
	}
	return w.err
}

// TestCreateIfAbsentUnansweredAttempt: the store applies a create and never
// answers. CreateIfAbsent waited forever (an import hung, review D3); each
// attempt is now given up after createTimeout, and the retry's "exists"
// is checked: the file holds our bytes, so the create succeeded.
func TestCreateIfAbsentUnansweredAttempt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, d := newFaulty(t)
	f.s.retry.createTimeout = 50 * time.Millisecond
	d.putLands, d.putHangs = true, true
	d.fail["put"] = 1
	if err := f.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("ours")); err != nil {
		t.Fatalf("CreateIfAbsent: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("CreateIfAbsent returned only when the test's deadline ended")
	}
	if got, want := f.Stats(), (Stats{Put: 2, Get: 1}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	// Another writer's bytes at the path: a lost race, as always.
	d.fail["put"] = 1
	if err := f.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("theirs")); !errors.Is(err, ErrExist) {
		t.Fatalf("CreateIfAbsent over another file: %v, want ErrExist", err)
	}
}

// httpError returns an AWS SDK response error with the HTTP status and the
// S3 error code, as the SDK returns it.
func httpError(status int, code string) error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      &smithy.GenericAPIError{Code: code, Message: code},
	}
}

// newFaulty returns a FileIO over a faulty local driver with the remote retry
// policy (4 attempts) but millisecond delays.
func newFaulty(t *testing.T) (*FileIO, *faulty) {
	d := &faulty{Bucket: localblob.New(t.TempDir()), fail: map[string]int{}}
	s := &store{
		bucket:  blob.NewBucket(d),
		urlRoot: "test://faulty",
		retry:   retryPolicy{attempts: 4, base: time.Millisecond, max: 4 * time.Millisecond},
	}
	f := &FileIO{s: s}
	t.Cleanup(func() { f.Close() })
	return f, d
}

func TestRetryTransientThenSuccess(t *testing.T) {
	ctx := context.Background()
	f, d := newFaulty(t)
	d.fail["put"] = 3
	if err := f.WriteFile(ctx, "a", []byte("x")); err != nil {
		t.Fatalf("WriteFile after 3 transient failures: %v", err)
	}
	d.fail["get"], d.fail["attrs"], d.fail["list"], d.fail["delete"] = 2, 2, 2, 2
	if b, err := f.ReadFile(ctx, "a"); err != nil || string(b) != "x" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if ok, err := f.Exists(ctx, "a"); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	if l, err := f.List(ctx, ""); len(l) != 1 || err != nil {
		t.Fatalf("List = %v, %v", l, err)
	}
	if err := f.Delete(ctx, "a"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	want := Stats{Put: 4, Get: 3, Head: 3, List: 3, Delete: 3}
	if got := f.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func TestRetryGivesUpAfterFourAttempts(t *testing.T) {
	ctx := context.Background()
	f, d := newFaulty(t)
	if err := f.WriteFile(ctx, "a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	d.fail["get"] = 10
	_, err := f.ReadFile(ctx, "a")
	if !errors.Is(err, errInjected) || gcerrors.Code(err) != gcerrors.Unknown {
		t.Fatalf("ReadFile: %v (code %v), want the injected error with code Unknown", err, gcerrors.Code(err))
	}
	if err.Error() != "fileio: read test://faulty/a: blob (key \"a\") (code=Unknown): injected transient failure" {
		t.Errorf("error text %q", err)
	}
	if got := f.Stats().Get; got != 4 {
		t.Errorf("%d get attempts, want 4", got)
	}
	if d.fail["get"] != 6 {
		t.Errorf("%d injected failures left, want 6", d.fail["get"])
	}
}

func TestNoRetryOfPermanentErrors(t *testing.T) {
	ctx := context.Background()
	f, d := newFaulty(t)
	if _, err := f.ReadFile(ctx, "missing"); !errors.Is(err, ErrNotExist) {
		t.Fatal(err)
	}
	if got := f.Stats(); got != (Stats{Get: 1}) {
		t.Errorf("not-found read cost %+v, want 1 get", got)
	}
	for _, c := range []struct {
		status int
		retry  bool
	}{
		{http.StatusForbidden, false}, {http.StatusBadRequest, false},
		{http.StatusServiceUnavailable, true}, {http.StatusInternalServerError, true},
		{http.StatusTooManyRequests, true}, {http.StatusConflict, true},
	} {
		before := f.Stats()
		d.fail["attrs"], d.failErr = 1, httpError(c.status, "X")
		_, err := f.Size(ctx, "missing")
		gotRetry := f.Stats().Since(before).Head == 2
		if gotRetry != c.retry {
			t.Errorf("HTTP %d: retried=%v, want %v (err %v)", c.status, gotRetry, c.retry, err)
		}
	}
	// A cancelled context is not retried.
	d.failErr = nil
	d.fail["get"] = 3
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	before := f.Stats()
	if _, err := f.ReadFile(cctx, "x"); err == nil {
		t.Fatal("ReadFile with cancelled ctx succeeded")
	}
	if d := f.Stats().Since(before); d.Get != 1 {
		t.Errorf("cancelled read made %d attempts, want 1", d.Get)
	}
}

func TestCreateIfAbsentLostResponse(t *testing.T) {
	// The first PUT lands but its answer is lost; the retry finds the object,
	// sees our own bytes, and reports success.
	ctx := context.Background()
	f, d := newFaulty(t)
	d.fail["put"], d.putLands = 1, true
	if err := f.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("mine")); err != nil {
		t.Fatalf("CreateIfAbsent: %v", err)
	}
	if got := f.Stats(); got != (Stats{Put: 2, Get: 1}) {
		t.Errorf("Stats = %+v, want 2 puts and 1 get", got)
	}
}

func TestCreateIfAbsentConflictThenOtherWins(t *testing.T) {
	// S3 answers 409 ConditionalRequestConflict while another writer's PUT
	// lands; the retry sees the other's object and reports ErrExist.
	ctx := context.Background()
	f, d := newFaulty(t)
	d.fail["put"], d.failErr = 1, httpError(http.StatusConflict, "ConditionalRequestConflict")
	d.beforeFailedPut = func() {
		other := &FileIO{s: f.s}
		d.mu.Lock()
		d.failErr = nil
		d.mu.Unlock()
		if err := other.WriteFile(ctx, "snapshot/snapshot-1", []byte("theirs")); err != nil {
			t.Error(err)
		}
	}
	err := f.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("mine"))
	if !errors.Is(err, ErrExist) {
		t.Fatalf("CreateIfAbsent: %v, want ErrExist", err)
	}
	if b, _ := f.ReadFile(ctx, "snapshot/snapshot-1"); string(b) != "theirs" {
		t.Errorf("content %q", b)
	}
}

func TestCreateIfAbsentConflictThenWin(t *testing.T) {
	ctx := context.Background()
	f, d := newFaulty(t)
	d.fail["put"], d.failErr = 2, httpError(http.StatusConflict, "ConditionalRequestConflict")
	if err := f.CreateIfAbsent(ctx, "s", []byte("mine")); err != nil {
		t.Fatalf("CreateIfAbsent: %v", err)
	}
	if got := f.Stats(); got != (Stats{Put: 3}) {
		t.Errorf("Stats = %+v, want 3 puts", got)
	}
}

func TestRangePastEndOnStrictStore(t *testing.T) {
	// Stores that answer 416 for a range past the end read as empty after a
	// HEAD, without retrying.
	ctx := context.Background()
	f, d := newFaulty(t)
	d.strictRange = true
	if err := f.WriteFile(ctx, "f", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "empty", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		off  int64
		n    int64
	}{{"f", 10, 5}, {"f", 20, -1}, {"empty", 0, 100}} {
		before := f.Stats()
		r, err := f.NewRangeReader(ctx, c.path, c.off, c.n)
		if err != nil {
			t.Fatalf("NewRangeReader(%s, %d, %d): %v", c.path, c.off, c.n, err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if len(b) != 0 {
			t.Errorf("read %q past the end", b)
		}
		if d := f.Stats().Since(before); d != (Stats{Get: 1, Head: 1}) {
			t.Errorf("past-end read cost %+v, want 1 get and 1 head", d)
		}
	}
	// Open of an empty file takes the same path.
	file, err := f.Open(ctx, "empty")
	if err != nil || file.Size() != 0 {
		t.Fatalf("Open(empty) = %v", err)
	}
	file.Close()
}

// Issue 12 part 1: the PUT lands, its answer is lost, the retry meets the
// object ("exists") and reading it back fails. The object may be ours:
// CreateIfAbsent must not report ErrExist (the committer would take it as a
// lost race and delete what the snapshot refers to).
func TestCreateIfAbsentLostResponseThenFailedCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		getErr  error
		getFail int
		gets    int64
	}{
		{"read-back denied once", httpError(http.StatusForbidden, "AccessDenied"), 1, 1},
		{"read-back fails on every retry", errInjected, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f, d := newFaulty(t)
			d.fail["put"], d.putLands = 1, true
			d.fail["get"] = tc.getFail
			d.opErr = map[string]error{"get": tc.getErr}
			err := f.CreateIfAbsent(ctx, "snapshot/snapshot-2", []byte("mine"))
			if !errors.Is(err, ErrOutcomeUnknown) || errors.Is(err, ErrExist) {
				t.Fatalf("CreateIfAbsent: %v, want ErrOutcomeUnknown and not ErrExist", err)
			}
			if got := f.Stats(); got != (Stats{Put: 2, Get: tc.gets}) {
				t.Errorf("Stats = %+v, want 2 puts and %d gets", got, tc.gets)
			}
		})
	}
}

// A transient failure of the last attempt leaves the outcome unknown; a
// permanent refusal of the first attempt does not.
func TestCreateIfAbsentGivesUpOutcomeUnknown(t *testing.T) {
	ctx := context.Background()
	f, d := newFaulty(t)
	d.fail["put"] = 4
	err := f.CreateIfAbsent(ctx, "s", []byte("mine"))
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, errInjected) {
		t.Fatalf("CreateIfAbsent after 4 transient failures: %v, want ErrOutcomeUnknown wrapping the failure", err)
	}
	f, d = newFaulty(t)
	d.fail["put"], d.failErr = 1, httpError(http.StatusForbidden, "AccessDenied")
	err = f.CreateIfAbsent(ctx, "s", []byte("mine"))
	if err == nil || errors.Is(err, ErrOutcomeUnknown) || errors.Is(err, ErrExist) {
		t.Fatalf("CreateIfAbsent refused with 403: %v, want neither ErrOutcomeUnknown nor ErrExist", err)
	}
}

// gocloud's gcsblob reports a GCS 403 as NotFound. A denied read, stat or
// delete must not pass for a missing file: an expiration took a denied
// DELETE of a snapshot file for "already gone" and left the snapshot
// referring to deleted manifests.
//
// The Google API error's status is read by the gs driver (fileio/gcs), which
// this test binary links through its external tests (testenv imports it).
func TestGCSDenialIsNotAbsence(t *testing.T) {
	if _, ok := storedriver.Lookup("gs"); !ok {
		t.Fatal("the gs driver (fileio/gcs) is not linked into this test binary")
	}
	ctx := context.Background()
	f, d := newFaulty(t)
	if err := f.WriteFile(ctx, "snapshot/snapshot-1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	denied := &googleapi.Error{Code: http.StatusForbidden}
	d.fail["get"], d.fail["attrs"], d.fail["delete"] = 1, 1, 1
	d.failErr = denied
	if _, err := f.ReadFile(ctx, "snapshot/snapshot-1"); errors.Is(err, ErrNotExist) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("denied ReadFile: %v, want fs.ErrPermission and not ErrNotExist", err)
	}
	if ok, err := f.Exists(ctx, "snapshot/snapshot-1"); err == nil || ok {
		t.Errorf("denied Exists: %v, %v; want an error", ok, err)
	}
	if err := f.Delete(ctx, "snapshot/snapshot-1"); errors.Is(err, ErrNotExist) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("denied Delete: %v, want fs.ErrPermission and not ErrNotExist", err)
	}
	d.fail["get"], d.failErr = 1, &googleapi.Error{Code: http.StatusNotFound}
	if _, err := f.ReadFile(ctx, "snapshot/snapshot-1"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile answered 404: %v, want ErrNotExist", err)
	}
}
