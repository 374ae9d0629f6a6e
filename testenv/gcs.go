package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"testing"
	"time"
)

// FakeGCS returns the URL "gs://BUCKET" of a new, empty bucket on the test
// binary's fake-gcs-server, starting it on first use, and sets
// STORAGE_EMULATOR_HOST for the test (t.Setenv: not in parallel tests) so
// that GCS clients talk to it. Without the binary the test is skipped, or
// fails when CI=true; scripts/install-fake-gcs.sh builds it. The package's
// TestMain must call Main.
func FakeGCS(t testing.TB) string {
	t.Helper()
	s := shared(t, &servers.gcs, "fake-gcs-server",
		func() (string, error) {
			return findBinary("FAKE_GCS_BIN", "fake-gcs-server", "fake-gcs-server/bin/fake-gcs-server")
		},
		isCI(), "install it with ./scripts/install-fake-gcs.sh, or: GOBIN=${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/fake-gcs-server/bin go install github.com/fsouza/fake-gcs-server@v1.56.1",
		startFakeGCS)
	bucket := bucketName()
	body, _ := json.Marshal(map[string]string{"name": bucket})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		"http://"+s.addr+"/storage/v1/b?project=test", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("testenv: create bucket %s on fake-gcs-server: %v", bucket, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("testenv: create bucket %s on fake-gcs-server: HTTP %s", bucket, resp.Status)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", s.addr)
	return "gs://" + bucket
}

// startFakeGCS starts fake-gcs-server with an in-memory backend. Without
// -public-host, object reads answer not-found.
func startFakeGCS(bin string) (*server, error) {
	return start("fake-gcs-server", func(_ string, port int) (*exec.Cmd, error) {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		return exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
			"-backend", "memory", "-public-host", addr, "-external-url", "http://"+addr), nil
	}, "/storage/v1/b")
}
