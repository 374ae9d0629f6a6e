package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ErrNoBinary reports that a server binary was not found; the message says
// how to install it.
var ErrNoBinary = errors.New("testenv: server binary not found")

// Server is a MinIO server a program started for itself, outside a test
// binary (cmd/rtbench --minio). Unlike the servers of MinIO(t) it is not
// shared: the program owns it and must Stop it.
type Server struct {
	s *server
}

// StartMinIO starts a MinIO server on 127.0.0.1 with a free port and a
// temporary data directory, finding the binary as MinIO(t) does ($MINIO_BIN,
// PATH, the cache filled by scripts/install-minio.sh). It sets
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_EC2_METADATA_DISABLED in
// the process environment, where s3 clients take them from.
//
// Errors: ErrNoBinary (wrapped, naming scripts/install-minio.sh) when there
// is no binary; start-up failures carry the server's log tail.
func StartMinIO() (*Server, error) {
	bin, err := findBinary("MINIO_BIN", "minio", "minio/bin/minio")
	if err != nil {
		return nil, err
	}
	if bin == "" {
		return nil, fmt.Errorf("%w: minio; build it with scripts/install-minio.sh (or set $MINIO_BIN)", ErrNoBinary)
	}
	s, err := startMinIO(bin)
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":         MinIOUser,
		"AWS_SECRET_ACCESS_KEY":     MinIOPassword,
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		if err := os.Setenv(k, v); err != nil {
			s.stop()
			return nil, fmt.Errorf("testenv: set %s: %w", k, err)
		}
	}
	return &Server{s: s}, nil
}

// Addr returns the server's host:port.
func (s *Server) Addr() string { return s.s.addr }

// NewBucket creates a new, empty bucket and returns its URL,
// "s3://BUCKET?endpoint=http://127.0.0.1:PORT&use_path_style=true&region=us-east-1".
func (s *Server) NewBucket(ctx context.Context) (string, error) {
	return makeBucket(ctx, s.s.addr)
}

// Stop stops the server and removes its data directory.
func (s *Server) Stop() { s.s.stop() }

// makeBucket creates a fresh bucket on the MinIO server at addr and returns
// its URL.
func makeBucket(ctx context.Context, addr string) (string, error) {
	bucket := bucketName()
	client, err := minio.New(addr, &minio.Options{
		Creds:  credentials.NewStaticV4(MinIOUser, MinIOPassword, ""),
		Region: MinIORegion,
	})
	if err != nil {
		return "", fmt.Errorf("testenv: minio client: %w", err)
	}
	if err := client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: MinIORegion}); err != nil {
		return "", fmt.Errorf("testenv: create bucket %s on minio %s: %w", bucket, addr, err)
	}
	return fmt.Sprintf("s3://%s?endpoint=http://%s&use_path_style=true&region=%s", bucket, addr, MinIORegion), nil
}
