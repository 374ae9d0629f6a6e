// Package driver is the registry through which the optional store drivers
// of package fileio (fileio/gcs for gs://, fileio/azure for azblob://) make
// their URL schemes known to fileio.Open. A program links a driver, and the
// SDK behind it, only by importing its package, as gocloud.dev/blob's URL
// openers do: the Google Cloud Storage client alone brings gRPC, xDS and
// envoy's protobuf packages, about half of the packages fileio would link.
package driver

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"time"

	"gocloud.dev/blob"
)

// Retry is fileio's retry policy for a remote store: Attempts tries per
// request, the wait doubling from Base to at most Max. A driver gives it to
// the SDK client of its Streams bucket, which must retry by itself (fileio
// cannot replay a streamed body).
type Retry struct {
	Attempts  int
	Base, Max time.Duration
}

// Buckets is what a driver opens for one URL.
type Buckets struct {
	// Bucket serves every request but streamed writes. Its client must not
	// retry by itself: fileio's retries are the only ones, and a
	// create-if-absent attempt whose answer was lost must be seen as such.
	Bucket *blob.Bucket
	// Streams, when not nil, serves streamed writes (fileio.Create), through
	// a client that retries each request as Retry says.
	Streams *blob.Bucket
	// BeforeCreate, when not nil, is the blob.WriterOptions.BeforeWrite of
	// fileio.CreateIfAbsent's conditional writes (e.g. to turn off a
	// client's own retries of them).
	BeforeCreate func(as func(any) bool) error
}

// Response is what a driver reads from an error of its SDK that carries
// an HTTP answer.
type Response struct {
	Status int    // HTTP status; 0 when the SDK got no answer
	Code   string // the store's error code, e.g. "ContainerNotFound"; may be ""
	// Text, when not "", replaces the SDK's own message in fileio's
	// errors (the Azure SDK's is the whole HTTP exchange).
	Text string
	// NoBucket reports that the bucket or container itself does not exist.
	NoBucket bool
}

// Driver opens the buckets of one URL scheme.
type Driver struct {
	// Open opens the bucket named host with the URL's query q. Errors for
	// a bad query or missing credentials wrap fileio.ErrInvalidURL or
	// fileio.ErrNoCredentials.
	Open func(ctx context.Context, host string, q url.Values, r Retry) (Buckets, error)
	// Response reports whether err (any error in its chain) is a response
	// error of the driver's SDK, and what it says.
	Response func(err error) (Response, bool)
}

var (
	mu      sync.RWMutex
	drivers = map[string]Driver{}
	schemes []string // the keys of drivers, sorted
)

// Register makes scheme ("gs", "azblob") open through d. It is called from
// the init function of a driver package; registering a scheme twice
// panics, as a programming error.
func Register(scheme string, d Driver) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := drivers[scheme]; dup {
		panic("fileio: driver for scheme " + scheme + " registered twice")
	}
	drivers[scheme] = d
	i, _ := slices.BinarySearch(schemes, scheme)
	schemes = slices.Insert(schemes, i, scheme)
}

// Lookup returns the driver of scheme.
func Lookup(scheme string) (Driver, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := drivers[scheme]
	return d, ok
}

// ResponseOf returns what the first registered driver, in scheme order,
// reads from err.
func ResponseOf(err error) (Response, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, s := range schemes {
		if d := drivers[s]; d.Response != nil {
			if r, ok := d.Response(err); ok {
				return r, true
			}
		}
	}
	return Response{}, false
}
