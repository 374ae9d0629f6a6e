package testenv

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
)

// TestFaultProxy: requests through the proxy reach the bucket and are
// logged; a fault failing before the store answers without applying the
// request, one failing after applies it and loses the answer, Times limits
// the failures, and Clear ends them.
func TestFaultProxy(t *testing.T) {
	ctx := context.Background()
	direct := MinIO(t)
	proxy, via := NewFaultProxy(t, direct)
	if via == direct || !strings.HasPrefix(via, "s3://") {
		t.Fatalf("proxied URL %s", via)
	}
	fio, err := fileio.Open(ctx, via)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	store, err := fileio.Open(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	exists := func(path string) bool {
		t.Helper()
		ok, err := store.Exists(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	if err := fio.WriteFile(ctx, "a/ok", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if got := proxy.TakeLog(); !slices.Equal(got, []string{"PUT a/ok"}) {
		t.Errorf("log %q, want [PUT a/ok]", got)
	}

	denied := &Fault{Method: http.MethodPut, Key: "a/denied", Status: http.StatusForbidden}
	lost := &Fault{Method: http.MethodPut, Key: "a/lost", After: true, Status: http.StatusForbidden}
	once := &Fault{Method: http.MethodGet, Key: "a/ok", Status: http.StatusInternalServerError, Times: 1}
	proxy.Inject(denied, lost, once)
	if err := fio.WriteFile(ctx, "a/denied", []byte("2")); err == nil {
		t.Error("PUT a/denied succeeded through a 403 fault")
	}
	if exists("a/denied") {
		t.Error("a/denied was stored although the fault answered before the store")
	}
	if err := fio.WriteFile(ctx, "a/lost", []byte("3")); err == nil {
		t.Error("PUT a/lost succeeded through a 403 fault after the store")
	}
	if !exists("a/lost") {
		t.Error("a/lost was not stored although the fault forwarded the PUT")
	}
	// One GET fails with 500; the S3 client retries it.
	if b, err := fio.ReadFile(ctx, "a/ok"); err != nil || string(b) != "1" {
		t.Errorf("GET a/ok after one 500: %q, %v", b, err)
	}
	if denied.Hits() != 1 || lost.Hits() != 1 || once.Hits() != 1 {
		t.Errorf("hits: denied %d, lost %d, once %d; want 1 each", denied.Hits(), lost.Hits(), once.Hits())
	}
	log := proxy.Clear()
	if want := []string{"PUT a/denied", "PUT a/lost", "GET a/ok", "GET a/ok"}; !slices.Equal(log, want) {
		t.Errorf("log %q, want %q", log, want)
	}
	if err := fio.WriteFile(ctx, "a/denied", []byte("2")); err != nil {
		t.Errorf("PUT after Clear: %v", err)
	}
	if got := proxy.TakeLog(); !slices.Equal(got, []string{"PUT a/denied"}) {
		t.Errorf("log after Clear %q, want [PUT a/denied]", got)
	}
}

// TestFaultProxyBadURL: a bucket URL without an endpoint fails the test.
func TestFaultProxyBadURL(t *testing.T) {
	ft := &fatalTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		NewFaultProxy(ft, "s3://bucket")
	}()
	if !errors.Is(ft.err, errFatal) {
		t.Errorf("NewFaultProxy without an endpoint did not fail the test")
	}
}

var errFatal = errors.New("fatal")

// fatalTB records Fatalf instead of ending the test, and panics to stop
// the caller as Fatalf would.
type fatalTB struct {
	testing.TB
	err error
}

func (f *fatalTB) Fatalf(string, ...any) {
	f.err = errFatal
	panic(errFatal)
}
