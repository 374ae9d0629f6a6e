package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// ServicePath is the table-relative path of the service file a running
// server records its address in, beside Java's service/service-<id> files
// of its query service (ServiceManager; PRIMARY_KEY_LOOKUP).
const ServicePath = "service/service-realtime-flight"

// ErrNoService reports a table whose folder records no running server.
var ErrNoService = errors.New("serve: no real-time server is recorded for the table")

// Service is the JSON content of the service file.
type Service struct {
	// Location is the Flight location, "grpc+tcp://host:port" or
	// "grpc+tls://host:port".
	Location   string    `json:"location"`
	PID        int       `json:"pid"`
	CommitUser string    `json:"commitUser"`
	Started    time.Time `json:"started"`
}

// WriteService records rec in the table folder of fio (overwriting an
// earlier record: the last server started wins). Errors: the store's.
func WriteService(ctx context.Context, fio *fileio.FileIO, rec Service) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := fio.WriteFile(ctx, ServicePath, b); err != nil {
		return fmt.Errorf("serve: record the server in %s: %w", ServicePath, err)
	}
	return nil
}

// ReadService returns the recorded server. Errors: ErrNoService (wrapping
// fileio.ErrNotExist) when none is recorded, ErrBadRequest wrapped for a
// damaged file (naming it), and the store's.
func ReadService(ctx context.Context, fio *fileio.FileIO) (Service, error) {
	var rec Service
	b, err := fio.ReadFileLimit(ctx, ServicePath, 64<<10)
	if errors.Is(err, fileio.ErrNotExist) {
		return rec, fmt.Errorf("%w (%s): %w", ErrNoService, ServicePath, err)
	}
	if err != nil {
		return rec, fmt.Errorf("serve: read %s: %w", ServicePath, err)
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Location == "" {
		if err == nil {
			err = errors.New("no location")
		}
		return rec, fmt.Errorf("%w: damaged service file %s: %v", ErrBadRequest, ServicePath, err)
	}
	return rec, nil
}

// DeleteService removes the service file if it still records location
// (a later server's record is kept). A missing file is not an error.
func DeleteService(ctx context.Context, fio *fileio.FileIO, location string) error {
	rec, err := ReadService(ctx, fio)
	if errors.Is(err, ErrNoService) || (err == nil && rec.Location != location) {
		return nil
	}
	if err := fio.Delete(ctx, ServicePath); err != nil && !errors.Is(err, fileio.ErrNotExist) {
		return fmt.Errorf("serve: remove %s: %w", ServicePath, err)
	}
	return nil
}
