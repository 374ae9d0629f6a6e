package serve

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
)

// ErrProviderUnavailable reports a union read whose real-time rows could
// not be fetched: the table names no provider (realtime.provider), no
// server is recorded, or the recorded server does not answer. The wrapped
// error says which.
var ErrProviderUnavailable = errors.New("serve: real-time provider unavailable")

// UnionOptions configure Union.
type UnionOptions struct {
	// Token is the servers' bearer token.
	Token string
	// Fallback reads the committed data alone when the provider is
	// unavailable (Union.Fallback and Union.Reason say so) instead of
	// failing with ErrProviderUnavailable.
	Fallback bool
	// Dial are options of Dial (TLS).
	Dial []DialOption
}

// Union is a union read of a table from another process: its committed
// snapshot plus the real-time rows the table's server holds above it.
type Union struct {
	// SnapshotID is the snapshot read (0 for a table without one).
	SnapshotID int64
	// Fallback is true when the rows are the committed data alone; Reason
	// is then the error wrapping ErrProviderUnavailable.
	Fallback bool
	Reason   error
	// Plan is the disk plan read; its ArrowSchema is the rows' schema.
	Plan *reader.Plan

	portions []realtime.Portion
	off      progress.Offsets
}

// OpenUnion plans a union read of t as PIP-46 describes it for an external
// engine: it finds the table's server from table metadata (option
// realtime.provider = flight and the service file, ReadService), fetches
// the real-time portion (the server's snapshot and the memory rows above
// its progress boundary, Client.Portions), plans that snapshot from the
// store with opts (reader options: columns, filters; not a snapshot) and
// merges the two in this process (realtime.ReadUnion): appended for append
// tables, merged by the merge engine for primary-key tables.
//
// Errors: ErrProviderUnavailable (unless o.Fallback), and those of
// planning.
func OpenUnion(ctx context.Context, t *paimon.Table, o UnionOptions, opts ...reader.Option) (*Union, error) {
	u := &Union{}
	snap, portions, err := fetch(ctx, t, o)
	if err != nil {
		if !o.Fallback {
			return nil, err
		}
		u.Fallback, u.Reason = true, err
	}
	u.portions = portions
	release := func() {
		for _, p := range u.portions {
			for _, r := range p.Rows {
				r.Release()
			}
		}
	}
	ropts := slices.Clone(opts)
	if dv, err := t.Schema().Options.DeletionVectorsEnabled(); err != nil {
		release()
		return nil, err
	} else if dv {
		ropts = append(ropts, reader.WithAllLevels()) // as the server's real-time scan plans it
	}
	if !u.Fallback && snap > 0 {
		ropts = append(ropts, reader.WithSnapshot(snap))
	}
	rp, err := t.NewScan(ropts...).Plan(ctx)
	if err != nil {
		release()
		return nil, err
	}
	if rp.Snapshot != nil {
		u.SnapshotID = rp.Snapshot.ID
	}
	if u.off, _, err = progress.OfSnapshot(ctx, t.FileIO(), "", rp.Snapshot); err != nil {
		release()
		return nil, err
	}
	u.Plan = rp
	return u, nil
}

// DialTable connects to the server recorded for t: the table must set
// realtime.provider = flight and its folder must record a server
// (ReadService). Errors: ErrProviderUnavailable wrapping the reason
// (ErrNoService, ErrLocation, a damaged service file).
func DialTable(ctx context.Context, t *paimon.Table, token string, opts ...DialOption) (*Client, Service, error) {
	prov, err := t.Schema().Options.RealtimeProvider()
	if err != nil {
		return nil, Service{}, err
	}
	if prov != "flight" {
		return nil, Service{}, fmt.Errorf("%w: the table does not set realtime.provider = flight", ErrProviderUnavailable)
	}
	rec, err := ReadService(ctx, t.FileIO())
	if err != nil {
		return nil, rec, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	c, err := Dial(rec.Location, token, opts...)
	if err != nil {
		return nil, rec, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	return c, rec, nil
}

// fetch returns the server's real-time portion.
func fetch(ctx context.Context, t *paimon.Table, o UnionOptions) (int64, []realtime.Portion, error) {
	c, rec, err := DialTable(ctx, t, o.Token, o.Dial...)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	snap, portions, err := c.Portions(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: server %s, recorded in %s/%s: %w", ErrProviderUnavailable, rec.Location, fileio.Redact(t.FileIO().URL()), ServicePath, err)
	}
	return snap, portions, nil
}

// Records reads the union; it may be called once (it owns the portions).
// The consumer releases each batch; on error the iterator yields (nil,
// err) once and stops.
func (u *Union) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	portions := u.portions
	u.portions = nil
	return realtime.ReadUnion(ctx, u.Plan, u.off, portions)
}
