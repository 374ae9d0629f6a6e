// Package gcs makes package fileio open gs://BUCKET/PREFIX URLs (Google
// Cloud Storage) when imported, as gocloud.dev/blob/gcsblob registers its
// URL opener:
//
//	import _ "github.com/paimon-go/paimon/fileio/gcs"
//
// Without it, fileio.Open refuses gs:// URLs with fileio.ErrInvalidURL. The
// Google Cloud Storage client brings gRPC, xDS and envoy's protobuf packages
// into a program (about half of the packages fileio links with it; with the
// Azure SDK, 17–22 MB of resident pages after init, docs/decisions.md), so
// programs that do not use the store do not link it.
//
// Credentials are Application Default Credentials; with STORAGE_EMULATOR_HOST
// set (host:port, no scheme) requests go to that emulator, e.g.
// fake-gcs-server. The URL query is that of gocloud.dev/blob/gcsblob
// (access_id, private_key_path, anonymous). Open fails with
// fileio.ErrNoCredentials, and a hint, when no credentials are found, instead
// of gocloud's warning on standard output and requests failing later.
package gcs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/gcsblob" // registers gs:// on gocloud's default URL mux
	"gocloud.dev/gcp"
	"google.golang.org/api/googleapi"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/fileio/internal/driver"
)

func init() {
	driver.Register("gs", driver.Driver{Open: open, Response: response})
}

// open opens the bucket through gocloud's gcsblob URL opener, after
// checking that it will find credentials.
func open(ctx context.Context, host string, q url.Values, _ driver.Retry) (driver.Buckets, error) {
	if err := credentials(ctx, q); err != nil {
		return driver.Buckets{}, err
	}
	b, err := blob.DefaultURLMux().OpenBucketURL(ctx, &url.URL{Scheme: "gs", Host: host, RawQuery: q.Encode()})
	if err != nil {
		// gocloud's opener fails here only on the URL's query or the
		// credentials it names (a key file that does not parse).
		return driver.Buckets{}, fmt.Errorf("%w: %w", fileio.ErrInvalidURL, err)
	}
	return driver.Buckets{Bucket: b, BeforeCreate: noClientRetries}, nil
}

// credentials checks, before gocloud's gcsblob opener runs, that it will
// find credentials: without Application Default Credentials that opener
// prints a warning on standard output (without a newline, into whatever the
// program prints next) and goes on with empty credentials that fail on the
// first request. Emulators (STORAGE_EMULATOR_HOST) and URLs that name their
// credentials (access_id, private_key_path, anonymous) skip the check.
func credentials(ctx context.Context, q url.Values) error {
	if os.Getenv("STORAGE_EMULATOR_HOST") != "" || os.Getenv("STORAGE_EMULATOR_HOST_GRPC") != "" ||
		q.Has("access_id") || q.Has("private_key_path") || q.Has("anonymous") {
		return nil
	}
	if _, err := gcp.DefaultCredentials(ctx); err != nil {
		return fmt.Errorf("%w: Google Cloud Application Default Credentials: %v (set GOOGLE_APPLICATION_CREDENTIALS, or add anonymous=true to the URL for a public bucket)", fileio.ErrNoCredentials, err)
	}
	return nil
}

// noClientRetries is the BeforeWrite of fileio.CreateIfAbsent: it turns off
// the GCS client's own retries of the write. The client retries a
// conditional write after a lost response by itself, and the retry's 412
// reached CreateIfAbsent as a first answer "exists": a lost race, although
// the write was ours.
func noClientRetries(as func(any) bool) error {
	var obj **storage.ObjectHandle
	if as(&obj) {
		*obj = (*obj).Retryer(storage.WithPolicy(storage.RetryNever))
	}
	return nil
}

// response reads the HTTP status of a Google API error.
func response(err error) (driver.Response, bool) {
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return driver.Response{Status: gerr.Code}, true
	}
	return driver.Response{}, false
}
