package fileio

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"gocloud.dev/gcerrors"

	"github.com/paimon-go/paimon/fileio/internal/driver"
)

// retryPolicy bounds the retries of transient store errors: at most attempts
// tries in total, sleeping a jittered delay of base*2^(n-1), capped at max,
// before try n+1.
type retryPolicy struct {
	attempts int
	base     time.Duration
	max      time.Duration
	// createTimeout bounds each attempt of CreateIfAbsent (0: unbounded): a
	// store that applies a create and never answers would otherwise hold
	// the commit forever. The metadata files it writes are small.
	createTimeout time.Duration
	// requestTimeout bounds each attempt of the other requests that are
	// complete when they return (0: unbounded): reads of whole files and
	// chunks, writes of whole files, HEADs, DELETEs and listing pages.
	requestTimeout time.Duration
}

// remoteRetry returns the policy for S3 and GCS: 4 attempts, 50 ms doubling
// to at most 1 s; an unanswered create-if-absent attempt is given up after
// a minute, and so is any other attempt of a request that is complete when
// it returns.
func remoteRetry() retryPolicy {
	return retryPolicy{attempts: 4, base: 50 * time.Millisecond, max: time.Second, createTimeout: time.Minute, requestTimeout: time.Minute}
}

// noRetry returns the policy for local and memory stores: a single attempt.
func noRetry() retryPolicy { return retryPolicy{attempts: 1} }

// transient reports whether err, returned while ctx was in use, is worth
// retrying. An HTTP answer is transient if its status is 5xx, 429 (throttled),
// 408 (request timeout) or 409 (S3's ConditionalRequestConflict and
// OperationAborted: a concurrent request on the same key). An error without
// an HTTP status (a network failure) is transient if its gcerrors code is
// Unknown, Internal, ResourceExhausted or DeadlineExceeded.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if status, ok := httpStatus(err); ok {
		return status >= 500 || status == http.StatusTooManyRequests ||
			status == http.StatusRequestTimeout || status == http.StatusConflict
	}
	switch gcerrors.Code(err) {
	case gcerrors.Unknown, gcerrors.Internal, gcerrors.ResourceExhausted, gcerrors.DeadlineExceeded:
		return true
	}
	return false
}

// httpStatus returns the HTTP status of a response error from the AWS SDK
// (smithy-go's ResponseError), or of a linked driver's SDK (the Google API
// client, the Azure SDK: package fileio/internal/driver). The AWS SDK reports
// a request that got no answer at all (a connection closed or reset after
// the request was sent) as a response error of status 0: that is no status,
// and such an error is transient (the request may have been applied).
func httpStatus(err error) (int, bool) {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() != 0 {
		return re.HTTPStatusCode(), true
	}
	if r, ok := driver.ResponseOf(err); ok && r.Status != 0 {
		return r.Status, true
	}
	return 0, false
}

// wait sleeps before the attempt after attempt (1-based), or returns
// ctx.Err() if ctx ends first.
func (p retryPolicy) wait(ctx context.Context, attempt int) error {
	d := p.base << (attempt - 1)
	if d > p.max || d <= 0 {
		d = p.max
	}
	if d > 1 {
		d = d/2 + rand.N(d/2) // full jitter over the upper half
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// do runs fn, counting one request of kind k per attempt, and retries it
// while it fails transiently and attempts remain. Each attempt gets a
// context that ends after the policy's requestTimeout (remote stores), so a
// store that accepts a request and never answers costs that long per
// attempt, not forever; an attempt given up so is transient. fn must be
// done with its context when it returns (streamed reads pass the caller's
// context on instead).
func (s *store) do(ctx context.Context, k opKind, fn func(ctx context.Context) error) error {
	for attempt := 1; ; attempt++ {
		s.stats.add(k)
		actx, cancel := ctx, context.CancelFunc(func() {})
		if s.retry.requestTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, s.retry.requestTimeout)
		}
		err := fn(actx)
		cancel()
		if err == nil || attempt >= s.retry.attempts || !transient(ctx, err) {
			return err
		}
		if s.retry.wait(ctx, attempt) != nil {
			return err
		}
	}
}
