package testenv

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/paimon-go/paimon/fileio"
)

func TestMain(m *testing.M) { Main(m) }

func TestMinIOBuckets(t *testing.T) {
	u1, u2 := MinIO(t), MinIO(t)
	if u1 == u2 {
		t.Fatalf("two calls returned the same bucket %s", u1)
	}
	var endpoint string
	for _, raw := range []string{u1, u2} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if u.Scheme != "s3" || u.Path != "" || q.Get("use_path_style") != "true" || q.Get("region") != "us-east-1" ||
			!strings.HasPrefix(q.Get("endpoint"), "http://127.0.0.1:") || len(q) != 3 {
			t.Errorf("URL %s is not s3://BUCKET?endpoint=http://127.0.0.1:PORT&use_path_style=true&region=us-east-1", raw)
		}
		if endpoint != "" && q.Get("endpoint") != endpoint {
			t.Errorf("buckets on different servers: %s and %s", endpoint, q.Get("endpoint"))
		}
		endpoint = q.Get("endpoint")
		// The bucket exists, is empty, and the credentials are in the environment.
		client, err := minio.New(strings.TrimPrefix(endpoint, "http://"), &minio.Options{
			Creds:  credentials.NewStaticV4(os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), ""),
			Region: MinIORegion,
		})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := client.BucketExists(context.Background(), u.Host)
		if err != nil || !ok {
			t.Errorf("bucket %s exists = %v, %v", u.Host, ok, err)
		}
		for obj := range client.ListObjects(context.Background(), u.Host, minio.ListObjectsOptions{Recursive: true}) {
			t.Errorf("new bucket %s holds %q (err %v)", u.Host, obj.Key, obj.Err)
		}
	}
}

func TestFindBinary(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("MINIO_BIN", "")
	if p, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); p != "" || err != nil {
		t.Errorf("with nothing installed: %q, %v", p, err)
	}
	cached := filepath.Join(cache, "paimon-go", "minio", "bin", "minio")
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); p != cached || err != nil {
		t.Errorf("cached binary: %q, %v; want %q", p, err, cached)
	}
	onPath := filepath.Join(os.Getenv("PATH"), "minio")
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); p != onPath || err != nil {
		t.Errorf("PATH before cache: %q, %v; want %q", p, err, onPath)
	}
	t.Setenv("MINIO_BIN", cached)
	if p, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); p != cached || err != nil {
		t.Errorf("$MINIO_BIN first: %q, %v; want %q", p, err, cached)
	}
	t.Setenv("MINIO_BIN", filepath.Join(cache, "nope"))
	if _, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); err == nil {
		t.Errorf("$MINIO_BIN naming a missing file: no error")
	}
}

// TestMissingMinIO runs TestMinIOBuckets in a child process that cannot find
// MinIO: it must skip, naming the install script, and fail when CI=true.
func TestMissingMinIO(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		var env []string
		for _, kv := range os.Environ() {
			switch strings.SplitN(kv, "=", 2)[0] {
			case "MINIO_BIN", "PATH", "CI", "XDG_CACHE_HOME":
			default:
				env = append(env, kv)
			}
		}
		env = append(env, "PATH="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "CI="+ci)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMinIOBuckets$", "-test.v")
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		switch {
		case ci == "" && (err != nil || !strings.Contains(out.String(), "--- SKIP: TestMinIOBuckets") ||
			!strings.Contains(out.String(), "scripts/install-minio.sh")):
			t.Errorf("without CI: %v, output:\n%s", err, out.String())
		case ci == "true" && (err == nil || !strings.Contains(out.String(), "--- FAIL: TestMinIOBuckets") ||
			!strings.Contains(out.String(), "CI=true")):
			t.Errorf("with CI=true: %v, output:\n%s", err, out.String())
		}
	}
}

func TestStartMinIO(t *testing.T) {
	if _, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio"); err != nil {
		t.Fatal(err)
	}
	s, err := StartMinIO()
	if errors.Is(err, ErrNoBinary) && !isCI() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	a, err := s.NewBucket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewBucket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two buckets share the URL %s", a)
	}
	fio, err := fileio.Open(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	if err := fio.CreateIfAbsent(ctx, "x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := fio.CreateIfAbsent(ctx, "x", []byte("2")); !errors.Is(err, fileio.ErrExist) {
		t.Fatalf("second create-if-absent: %v, want ErrExist", err)
	}
	got, err := fio.ReadFile(ctx, "x")
	if err != nil || string(got) != "1" {
		t.Fatalf("read x = %q, %v; want \"1\"", got, err)
	}
}
