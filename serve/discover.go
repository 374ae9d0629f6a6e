package serve

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-go/paimon/fileio"
)

// ServicePath is the table-relative path of the service file a running
// server records its address in, beside Java's service/service-<id> files
// of its query service (ServiceManager; PRIMARY_KEY_LOOKUP).
const ServicePath = "service/service-realtime-flight"

// ErrNoService reports a table whose folder records no running server.
var ErrNoService = errors.New("serve: no real-time server is recorded for the table")

// ErrTableServed reports a table whose service file names another server
// that answers: one server commits a table's real-time progress (two
// would each refuse the other's progress and drop what they hold).
var ErrTableServed = errors.New("serve: the table is already served")

// ErrDamagedService reports a service file that holds no server record
// (not JSON, or no location). A server starting on the table replaces it;
// readers looking for the server fail with it (wrapped in
// ErrProviderUnavailable by DialTable and OpenUnion).
var ErrDamagedService = errors.New("serve: damaged service file")

// probeTimeout bounds the liveness probe of a recorded server.
const probeTimeout = 2 * time.Second

// Alive reports whether a Flight server answers at location within
// probeTimeout: any gRPC answer, an Unauthenticated refusal included (the
// probe carries no token), proves it; a refused connection or no answer
// does not. TLS certificates are not verified (liveness only; nothing is
// sent).
func Alive(ctx context.Context, location string) bool {
	c, err := Dial(location, "", WithTLS(&tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12})) //nolint:gosec // liveness probe, sends nothing
	if err != nil {
		return false
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	st, err := c.fc.ListActions(ctx, &flight.Empty{})
	if err == nil {
		_, err = st.Recv()
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return false
	}
	return true
}

// claim refuses to serve when the service file names another live server
// (ErrTableServed, naming it and the file); a missing, damaged or dead
// record, or one naming self (a restart on the same address), is
// replaced by the caller.
func claim(ctx context.Context, fio *fileio.FileIO, self string) error {
	rec, err := ReadService(ctx, fio)
	switch {
	case errors.Is(err, ErrNoService), errors.Is(err, ErrDamagedService):
		return nil
	case err != nil:
		return err
	case rec.Location == self || !Alive(ctx, rec.Location):
		return nil
	}
	return fmt.Errorf("%w: %s of %s records %s (pid %d, commit user %s, started %s), which answers; stop it first, or remove the file if that address is not this table's server",
		ErrTableServed, ServicePath, fio.URL(), rec.Location, rec.PID, rec.CommitUser, rec.Started.Format(time.RFC3339))
}

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
// fileio.ErrNotExist) when none is recorded, ErrDamagedService for a
// damaged file (naming it and the table), and the store's.
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
		return rec, fmt.Errorf("%w %s of %s: %v", ErrDamagedService, ServicePath, fileio.Redact(fio.URL()), err)
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
