package main

import (
	"context"
	"fmt"
	"os"

	"github.com/paimon-go/paimon/testenv"
)

// store is the warehouse location of a run and how to clean it up.
type store struct {
	url string
	// temp is the local directory rtbench created ("" for other stores).
	temp string
	// close stops what openStore started (MinIO) and removes temp unless
	// the warehouse is kept.
	close func(keep bool)
}

// openStore returns the warehouse of the run: --store, a fresh bucket on a
// MinIO server started for this run (--minio), or a fresh temporary local
// directory.
func openStore(ctx context.Context, cfg *config) (*store, error) {
	switch {
	case cfg.minio:
		return startMinIO(ctx)
	case cfg.store != "":
		return &store{url: cfg.store, close: func(bool) {}}, nil
	}
	dir, err := os.MkdirTemp("", "rtbench-")
	if err != nil {
		return nil, fmt.Errorf("rtbench: temporary warehouse: %w", err)
	}
	return &store{url: "file://" + dir, temp: dir, close: func(keep bool) {
		if !keep {
			_ = os.RemoveAll(dir)
		}
	}}, nil
}

// startMinIO starts the test MinIO server of package testenv on loopback
// (the binary scripts/install-minio.sh builds) and creates a fresh bucket.
func startMinIO(ctx context.Context) (*store, error) {
	srv, err := testenv.StartMinIO()
	if err != nil {
		return nil, fmt.Errorf("rtbench: --minio: %w", err)
	}
	url, err := srv.NewBucket(ctx)
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("rtbench: --minio: %w", err)
	}
	return &store{url: url, close: func(bool) { srv.Stop() }}, nil
}
