package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// MinIO credentials and region of the test server.
const (
	MinIOUser     = "minioadmin"
	MinIOPassword = "minioadmin"
	MinIORegion   = "us-east-1"
)

// MinIO returns the URL of a new, empty bucket on the test binary's MinIO
// server, starting the server on first use:
//
//	s3://BUCKET?endpoint=http://127.0.0.1:PORT&use_path_style=true&region=us-east-1
//
// It sets AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the test (with
// t.Setenv, so the test must not be parallel), which is where s3 clients, and
// child processes the test starts, take the credentials from.
//
// Without a MinIO binary the test is skipped, or fails if CI=true. The
// package's TestMain must call Main.
func MinIO(t testing.TB) string {
	t.Helper()
	s := shared(t, &servers.minio, "minio",
		func() (string, error) { return findBinary("MINIO_BIN", "minio", "minio/bin/minio") },
		isCI(), "build it with scripts/install-minio.sh (or set $MINIO_BIN)", startMinIO)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, err := makeBucket(ctx, s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", MinIOUser)
	t.Setenv("AWS_SECRET_ACCESS_KEY", MinIOPassword)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return url
}

// startMinIO starts "minio server" with the data in dir/data.
func startMinIO(bin string) (*server, error) {
	return start("minio", func(dir string, port int) (*exec.Cmd, error) {
		console, err := freePort()
		if err != nil {
			return nil, err
		}
		data := filepath.Join(dir, "data")
		cmd := exec.Command(bin, "server", "--quiet",
			"--address", fmt.Sprintf("127.0.0.1:%d", port),
			"--console-address", fmt.Sprintf("127.0.0.1:%d", console),
			data)
		cmd.Env = append(os.Environ(),
			"MINIO_ROOT_USER="+MinIOUser,
			"MINIO_ROOT_PASSWORD="+MinIOPassword,
			"MINIO_BROWSER=off",
			"MINIO_UPDATE=off",
		)
		return cmd, nil
	}, "/minio/health/ready")
}
