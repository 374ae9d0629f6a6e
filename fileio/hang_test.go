package fileio_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// TestUnansweredRequestsEnd: a store that accepts requests and never
// answers does not hang a read, a listing or a HEAD: each attempt is given
// up after the request timeout (a minute; 100 ms here) and retried, and
// the call fails after the last attempt with the caller's context live.
func TestUnansweredRequestsEnd(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	fio, err := fileio.Open(context.Background(), "s3://b/wh?endpoint="+srv.URL+"&use_path_style=true&region=us-east-1&disable_https=true")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	fileio.SetRequestTimeout(fio, 100*time.Millisecond)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
		want fileio.Stats
	}{
		{"read", func() error { _, err := fio.ReadFile(ctx, "snapshot/LATEST"); return err }, fileio.Stats{Get: 4}},
		{"list", func() error { _, err := fio.List(ctx, "snapshot"); return err }, fileio.Stats{List: 4}},
		{"exists", func() error { _, err := fio.Exists(ctx, "snapshot/snapshot-1"); return err }, fileio.Stats{Head: 4}},
	} {
		before := fio.Stats()
		t0 := time.Now()
		err := c.call()
		took := time.Since(t0)
		if err == nil || errors.Is(err, fileio.ErrNotExist) {
			t.Errorf("%s: %v, want a timeout error", c.name, err)
		}
		if got := fio.Stats().Since(before); got != c.want {
			t.Errorf("%s: requests %+v, want %+v", c.name, got, c.want)
		}
		if took > 30*time.Second {
			t.Errorf("%s took %v", c.name, took)
		}
	}
}
