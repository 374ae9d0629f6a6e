package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Fault makes a FaultProxy fail the requests of one HTTP method whose
// object key (the path below the bucket, e.g. "db.db/t/snapshot/snapshot-3")
// contains Key.
type Fault struct {
	// Method is the HTTP method to fail: http.MethodPut for writes
	// (including create-if-absent), http.MethodGet, http.MethodHead,
	// http.MethodDelete.
	Method string
	// Key is a substring of the object keys to fail. Listings have the key
	// "?list=PREFIX".
	Key string
	// Class, when set, replaces Key: the fault matches the keys whose
	// KeyClass is Class.
	Class string
	// Skip lets the first Skip matching requests through before the fault
	// fails any.
	Skip int
	// Armed, when set, keeps the fault off until Armed has failed a
	// request (a read-back failing only after the write's answer was lost).
	Armed *Fault
	// After forwards the request, so that the store applies it, and then
	// replaces the store's answer with Status: a lost answer. Otherwise the
	// proxy answers Status without forwarding: the store never sees the
	// request.
	After bool
	// Drop, with After, closes the connection without any answer once the
	// store has applied the request (a reply lost on the network: the
	// client sees no HTTP status at all). Status is then ignored.
	Drop bool
	// Status is the HTTP status of the failure, with an S3 XML error body:
	// 403 (AccessDenied, which fileio does not retry), 409
	// (ConditionalRequestConflict, S3's answer to a conditional write racing
	// another on the key), 412 (PreconditionFailed, the key exists), 503
	// (SlowDown) or another status (InternalError); fileio retries 409 and
	// 5xx.
	Status int
	// Times is how many matching requests fail; 0 means all of them.
	Times int

	hits atomic.Int64
	seen int // matching requests, under FaultProxy.mu
}

// Hits returns how many requests the fault failed.
func (f *Fault) Hits() int { return int(f.hits.Load()) }

// FaultProxy is an HTTP proxy between fileio and the MinIO server of a
// bucket that fails chosen requests (Fault) and logs every request as
// "METHOD key". fileio takes no custom HTTP client, so faults of an object
// store are injected at the endpoint the bucket URL names. It is safe for
// concurrent use.
type FaultProxy struct {
	bucket string
	mu     sync.Mutex
	faults []*Fault
	log    []string
}

type faultKey struct{}

// NewFaultProxy starts a FaultProxy in front of the MinIO bucket of
// bucketURL (as MinIO returns it, "s3://BUCKET?endpoint=…") and returns it
// with the bucket's URL through the proxy, for fileio.Open. The proxy is
// stopped when t ends. A URL that does not parse, or names no endpoint,
// fails t.
func NewFaultProxy(t testing.TB, bucketURL string) (*FaultProxy, string) {
	t.Helper()
	u, err := url.Parse(bucketURL)
	if err != nil {
		t.Fatalf("testenv: fault proxy: %v", err)
	}
	q := u.Query()
	target, err := url.Parse(q.Get("endpoint"))
	if err != nil || target.Host == "" {
		t.Fatalf("testenv: fault proxy: %s names no endpoint (%v)", bucketURL, err)
	}
	p, srv := newFaultProxy(t, u.Host, target, storeS3)
	q.Set("endpoint", srv.URL)
	u.RawQuery = q.Encode()
	return p, u.String()
}

// NewGCSFaultProxy starts a FaultProxy in front of the fake-gcs-server
// bucket of bucketURL (as FakeGCS returns it, "gs://BUCKET") and points
// STORAGE_EMULATOR_HOST at the proxy for the rest of the test (t.Setenv),
// so that fileio.Open(bucketURL) goes through it. Keys are the object
// names of the JSON API paths (".../b/BUCKET/o/KEY"), of XML reads
// ("/BUCKET/KEY") and of uploads (POST, the name taken from the upload's
// metadata). The proxy is stopped when t ends.
func NewGCSFaultProxy(t testing.TB, bucketURL string) *FaultProxy {
	t.Helper()
	u, err := url.Parse(bucketURL)
	if err != nil || u.Scheme != "gs" {
		t.Fatalf("testenv: GCS fault proxy: %s is no gs:// URL (%v)", bucketURL, err)
	}
	host := os.Getenv("STORAGE_EMULATOR_HOST")
	target, err := url.Parse("http://" + strings.TrimPrefix(host, "http://"))
	if err != nil || host == "" {
		t.Fatalf("testenv: GCS fault proxy: STORAGE_EMULATOR_HOST %q: %v", host, err)
	}
	p, srv := newFaultProxy(t, u.Host, target, storeGCS)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
	return p
}

// uploadName finds the object name in the JSON metadata of a GCS upload.
var uploadName = regexp.MustCompile(`"name":\s*"([^"]*)"`)

// gcsKey returns the object key of a GCS request (see NewGCSFaultProxy),
// reading and restoring r's body for uploads.
func gcsKey(r *http.Request, bucket string) string {
	path := r.URL.Path
	if i := strings.Index(path, "/b/"+bucket+"/o"); i >= 0 {
		rest := strings.TrimPrefix(path[i+len("/b/"+bucket+"/o"):], "/")
		if rest != "" {
			return rest
		}
		if r.Method == http.MethodGet {
			return "?list=" + r.URL.Query().Get("prefix")
		}
		if name := r.URL.Query().Get("name"); name != "" {
			return name
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if m := uploadName.FindSubmatch(body); m != nil {
			return string(m[1])
		}
		return "?upload"
	}
	return strings.TrimPrefix(path, "/"+bucket+"/")
}

// NewAzureFaultProxy starts a FaultProxy in front of the Azurite container
// of containerURL (as Azurite returns it,
// "azblob://CONTAINER?localemu=true&protocol=http&domain=HOST:PORT") and
// returns the container's URL through the proxy, for fileio.Open. Keys are
// the blob names of the paths "/ACCOUNT/CONTAINER/KEY" (a block and the
// block list of a large upload are PUTs of the blob's key); listings are
// "?list=PREFIX". Failures carry Azure's x-ms-error-code header. The proxy
// is stopped when t ends.
func NewAzureFaultProxy(t testing.TB, containerURL string) (*FaultProxy, string) {
	t.Helper()
	u, err := url.Parse(containerURL)
	if err != nil || u.Scheme != "azblob" {
		t.Fatalf("testenv: Azure fault proxy: %s is no azblob:// URL (%v)", containerURL, err)
	}
	q := u.Query()
	target, err := url.Parse("http://" + q.Get("domain"))
	if err != nil || q.Get("domain") == "" {
		t.Fatalf("testenv: Azure fault proxy: %s names no domain (%v)", containerURL, err)
	}
	p, srv := newFaultProxy(t, AzuriteAccount+"/"+u.Host, target, storeAzure)
	q.Set("domain", strings.TrimPrefix(srv.URL, "http://"))
	u.RawQuery = q.Encode()
	return p, u.String()
}

// proxied is the kind of store behind a FaultProxy.
type proxied int

const (
	storeS3 proxied = iota
	storeGCS
	storeAzure
)

// newFaultProxy starts the proxy to target for bucket (for Azure,
// "ACCOUNT/CONTAINER"). GCS keys are found by gcsKey, and GCS requests
// carry the target's Host (fake-gcs-server routes XML reads by it; S3 signs
// the Host, so MinIO must see the proxy's).
func newFaultProxy(t testing.TB, bucket string, target *url.URL, kind proxied) (*FaultProxy, *httptest.Server) {
	p := &FaultProxy{bucket: bucket}
	gcs := kind == storeGCS
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.SetXForwarded()
		if gcs {
			r.Out.Host = target.Host
		} else {
			r.Out.Host = r.In.Host
		}
	}}
	rp.ModifyResponse = func(resp *http.Response) error {
		f, _ := resp.Request.Context().Value(faultKey{}).(*Fault)
		if f == nil {
			return nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		body := errorBody(f.Status)
		resp.StatusCode, resp.Status = f.Status, fmt.Sprintf("%d %s", f.Status, http.StatusText(f.Status))
		if kind == storeAzure {
			resp.Header.Set("x-ms-error-code", azureErrorCode(f.Status))
		}
		resp.Header.Set("Content-Type", "application/xml")
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.ContentLength = int64(len(body))
		resp.Body = io.NopCloser(strings.NewReader(body))
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var key string
		switch {
		case gcs:
			key = gcsKey(r, p.bucket)
		case r.URL.Path == "/"+p.bucket || r.URL.Path == "/"+p.bucket+"/":
			key = "?list=" + r.URL.Query().Get("prefix")
		default:
			key = strings.TrimPrefix(r.URL.Path, "/"+p.bucket+"/")
		}
		f := p.match(r.Method, key)
		switch {
		case f == nil:
		case !f.After:
			_, _ = io.Copy(io.Discard, r.Body)
			if kind == storeAzure {
				w.Header().Set("x-ms-error-code", azureErrorCode(f.Status))
			}
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(f.Status)
			if r.Method != http.MethodHead {
				_, _ = io.WriteString(w, errorBody(f.Status))
			}
			return
		case f.Drop:
			rp.ServeHTTP(httptest.NewRecorder(), r) // applied by the store, answer discarded
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			panic(http.ErrAbortHandler) // closes the connection without an answer
		default:
			r = r.WithContext(context.WithValue(r.Context(), faultKey{}, f))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv
}

// KeyClass returns key up to its first UUID ("db.db/t/manifest/manifest-list-"
// for "db.db/t/manifest/manifest-list-<uuid>-1"), or key itself when it has
// none: the part of a key that is the same in every run of an operation.
func KeyClass(key string) string {
	if loc := uuidRE.FindStringIndex(key); loc != nil {
		return key[:loc[0]]
	}
	return key
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// s3ErrorCode is the S3 error code of an injected failure of status.
func s3ErrorCode(status int) string {
	switch status {
	case http.StatusForbidden:
		return "AccessDenied"
	case http.StatusConflict:
		return "ConditionalRequestConflict"
	case http.StatusPreconditionFailed:
		return "PreconditionFailed"
	case http.StatusServiceUnavailable:
		return "SlowDown"
	}
	return "InternalError"
}

// errorBody is an S3 error document for status.
func errorBody(status int) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` +
		"<Error><Code>" + s3ErrorCode(status) + "</Code><Message>injected by testenv.FaultProxy</Message><RequestId>0</RequestId></Error>"
}

// azureErrorCode is the x-ms-error-code of an injected failure: 412 is
// ConditionNotMet (the blob exists, as Azure answers If-None-Match: *),
// 403 AuthorizationFailure; others keep errorBody's S3 codes, which the
// Azure client takes as unknown errors of that status.
func azureErrorCode(status int) string {
	switch status {
	case http.StatusPreconditionFailed:
		return "ConditionNotMet"
	case http.StatusForbidden:
		return "AuthorizationFailure"
	}
	return s3ErrorCode(status)
}

// match logs the request and returns the first fault it triggers, if any.
func (p *FaultProxy) match(method, key string) *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, method+" "+key)
	for _, f := range p.faults {
		if f.Method != method || (f.Class == "" && !strings.Contains(key, f.Key)) || (f.Class != "" && KeyClass(key) != f.Class) ||
			(f.Armed != nil && f.Armed.Hits() == 0) {
			continue
		}
		f.seen++
		if f.seen > f.Skip && (f.Times == 0 || f.Hits() < f.Times) {
			f.hits.Add(1)
			return f
		}
	}
	return nil
}

// Inject adds faults; they apply, first added first, until Clear.
func (p *FaultProxy) Inject(fs ...*Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, fs...)
}

// Clear removes every fault and returns the requests logged since the
// previous Clear or TakeLog.
func (p *FaultProxy) Clear() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
	return p.takeLog()
}

// TakeLog returns the requests logged since the previous Clear or TakeLog,
// as "METHOD key" in arrival order, and forgets them.
func (p *FaultProxy) TakeLog() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.takeLog()
}

func (p *FaultProxy) takeLog() []string {
	log := p.log
	p.log = nil
	return log
}
