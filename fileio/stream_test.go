package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
)

// create writes data to path through Create (a streamed write).
func create(ctx context.Context, fio *fileio.FileIO, path string, data []byte) error {
	w, err := fio.Create(ctx, path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		w.(fileio.Aborter).Abort()
		return errors.Join(err, w.Close())
	}
	return w.Close()
}

// TestStreamedWriteRetriesOnS3: a streamed write (Create) on S3 survives
// transient answers of its requests, a single PUT for a small file and the
// part uploads of a multipart one, and fails on a permanent answer.
func TestStreamedWriteRetriesOnS3(t *testing.T) {
	ctx := context.Background()
	proxy, u := testenv.NewFaultProxy(t, testenv.MinIO(t))
	fio := openURL(t, u)
	defer fio.Close()
	small := []byte(strings.Repeat("paimon", 1000))
	large := bytes.Repeat([]byte("0123456789abcdef"), 11<<16) // 11 MiB: three parts of 5 MiB at most
	for _, c := range []struct {
		name  string
		data  []byte
		fault *testenv.Fault
		ok    bool
	}{
		{"small, PUT 500 twice", small, &testenv.Fault{Method: http.MethodPut, Key: "s500", Status: 500, Times: 2}, true},
		{"small, PUT 500 always", small, &testenv.Fault{Method: http.MethodPut, Key: "s500all", Status: 500}, false},
		{"small, PUT denied", small, &testenv.Fault{Method: http.MethodPut, Key: "s403", Status: 403, Times: 1}, false},
		{"large, a part 500 once", large, &testenv.Fault{Method: http.MethodPut, Key: "l500", Status: 500, Times: 1}, true},
		{"large, a part denied", large, &testenv.Fault{Method: http.MethodPut, Key: "l403", Status: 403, Times: 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := "dir/" + c.fault.Key + ".bin"
			proxy.Inject(c.fault)
			err := create(ctx, fio, path, c.data)
			proxy.Clear()
			if c.fault.Hits() == 0 {
				t.Fatal("no request met the fault")
			}
			got, rerr := fio.ReadFile(ctx, path)
			if c.ok {
				if err != nil || rerr != nil || !bytes.Equal(got, c.data) {
					t.Fatalf("write: %v; read back %d bytes (want %d), %v", err, len(got), len(c.data), rerr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("write under a permanent fault: %v; want an error naming %s", err, path)
			}
			if !errors.Is(rerr, fileio.ErrNotExist) {
				t.Errorf("after a failed write the file reads as %d bytes, %v; want ErrNotExist", len(got), rerr)
			}
		})
	}
}
