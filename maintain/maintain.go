package maintain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrSnapshotExpiration wraps a failed snapshot expiration after a
	// commit (the cause, e.g. a store error or expire.ErrUnsupported, is
	// wrapped too). The commit itself succeeded.
	ErrSnapshotExpiration = errors.New("maintain: snapshot expiration failed")
	// ErrPartitionExpiration wraps a failed partition expiration after a
	// commit: reading the partitions or committing their drop. The commit
	// itself succeeded.
	ErrPartitionExpiration = errors.New("maintain: partition expiration failed")
	// ErrConsumerExpiration wraps a failed consumer expiration after a
	// commit (listing or deleting consumer files). The commit itself
	// succeeded.
	ErrConsumerExpiration = errors.New("maintain: consumer expiration failed")
)

// Options configure New. The zero value is Java's behaviour: errors are
// logged with log/slog, the clock is time.Now in the local time zone.
type Options struct {
	// OnError receives every maintenance error (wrapping
	// ErrSnapshotExpiration or ErrPartitionExpiration) instead of the
	// default logging through slog.Default at level Error. It is called
	// from the goroutine that runs the maintenance: the committing one in
	// sync mode, a background one in async mode.
	OnError func(error)
	// Now is the clock (default time.Now): snapshot.time-retained,
	// partition.expiration-time and partition.expiration-check-interval
	// are measured with it.
	Now func() time.Time
	// Zone is the time zone of partition times and file creation times
	// (Java's JVM default zone; default time.Local).
	Zone *time.Location
}

// Stats count what a Maintainer did; see Maintainer.Stats.
type Stats struct {
	// SnapshotRuns is the number of expire.Expire runs (a run happens only
	// when a snapshot is due by the retention options).
	SnapshotRuns int
	// SnapshotsExpired is the number of snapshots those runs expired.
	SnapshotsExpired int
	// PartitionChecks is the number of partition-expiration checks (each
	// reads the latest snapshot's manifests).
	PartitionChecks int
	// PartitionsDropped is the number of partitions dropped.
	PartitionsDropped int
	// ConsumersExpired is the number of consumers deleted by
	// consumer.expiration-time.
	ConsumersExpired int
	// Errors is the number of errors reported.
	Errors int
}

// Maintainer expires snapshots and partitions of one table after the
// commits of a commit.Committer (Java TableCommitImpl.expire with
// ExpireSnapshotsImpl and PartitionExpire); install it with
// commit.WithMaintainer. It is safe for concurrent use.
type Maintainer struct {
	fio        *fileio.FileIO
	ts         *schema.TableSchema
	commitUser string
	sm         *snapshot.Manager
	now        func() time.Time
	zone       *time.Location
	onError    func(error)
	async      bool

	// Snapshot expiration (nil expire config: off).
	snaps bool
	retainMin, retainMax,
	limit int
	timeRetained time.Duration

	// Partition expiration (parts nil: off).
	parts *partitionExpire

	// consumerTTL is consumer.expiration-time (0: consumers never expire).
	consumerTTL time.Duration

	run sync.Mutex // one maintenance run at a time

	mu       sync.Mutex
	latest   int64 // the highest snapshot id committed through this Maintainer
	endInput bool  // a batch commit asked for the end-input partition check
	earliest int64 // cached earliest snapshot id (0: unknown)
	succTime int64 // commit time (epoch ms) of snapshot earliest+1 (-1: unknown)
	stuckAt  int64 // latest id of a due run that expired nothing (consumers)
	snapsOff bool  // Expire refused the table's options: no more runs
	stats    Stats
	lastErr  error
	inflight bool // async: a background run is going on
	dirty    bool // async: a commit arrived during the background run
	wg       sync.WaitGroup
}

// New returns the Maintainer of the table rooted at fio (main branch) with
// schema ts, for commits of commitUser, configured by the table options as
// Java configures it (CoreOptions):
//
//   - snapshot expiration: snapshot.num-retained.min (default 10),
//     snapshot.num-retained.max (default Integer.MAX_VALUE),
//     snapshot.time-retained (default 1 h), snapshot.expire.limit (default
//     50) and snapshot.expire.execution-mode (sync, the default, or async);
//     off for write-only tables and, as in Java's PrimaryKeyFileStoreTable,
//     for bucket = -2 (postpone) tables;
//   - partition expiration: partition.expiration-time (unset: off),
//     partition.expiration-check-interval (default 1 h),
//     partition.expiration-strategy (values-time or update-time),
//     partition.timestamp-formatter, partition.timestamp-pattern,
//     partition.expiration-max-num (default 100),
//     partition.expiration-batch-size and end-input.check-partition-expire
//     (default false); off for write-only and unpartitioned tables.
//
// Errors: schema.ErrInvalidOption for malformed options. A
// partition.timestamp-formatter outside the supported subset of Java's
// DateTimeFormatter letters (y, u, M, d, H, m, s, S and literals) is no
// error here, so that committing still works: partition expiration is off
// and the reason is reported (ErrPartitionExpiration wrapping
// schema.ErrInvalidOption) through OnError or the log.
func New(fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts Options) (*Maintainer, error) {
	o := ts.Options
	m := &Maintainer{
		fio: fio, ts: ts, commitUser: commitUser,
		sm:   snapshot.NewManager(fio),
		now:  opts.Now,
		zone: opts.Zone, onError: opts.OnError,
		succTime: -1,
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.zone == nil {
		m.zone = time.Local
	}
	writeOnly, err := o.WriteOnly()
	if err != nil {
		return nil, err
	}
	mode, err := o.SnapshotExpireExecutionMode()
	if err != nil {
		return nil, err
	}
	m.async = mode == "async"
	if m.retainMin, err = o.SnapshotNumRetainedMin(); err != nil {
		return nil, err
	}
	if m.retainMax, err = o.SnapshotNumRetainedMax(); err != nil {
		return nil, err
	}
	if m.limit, err = o.SnapshotExpireLimit(); err != nil {
		return nil, err
	}
	if m.timeRetained, err = o.SnapshotTimeRetained(); err != nil {
		return nil, err
	}
	bucket, err := o.Bucket()
	if err != nil {
		return nil, err
	}
	postpone := bucket == -2 && len(ts.PrimaryKeys) > 0
	m.snaps = !writeOnly && !postpone && m.limit > 0
	if !writeOnly {
		if m.consumerTTL, err = o.Duration(keyConsumerExpirationTime, 0); err != nil {
			return nil, err
		}
	}
	if !writeOnly && len(ts.PartitionKeys) > 0 {
		if m.parts, err = newPartitionExpire(m, m.now()); errors.Is(err, errUnsupportedLayout) {
			m.report(fmt.Errorf("%w: partition expiration is off: %w", ErrPartitionExpiration, err))
		} else if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Enabled reports whether the Maintainer does anything: false for
// write-only tables, and for tables whose options turn both expirations
// off.
func (m *Maintainer) Enabled() bool { return m.snaps || m.parts != nil || m.consumerTTL > 0 }

// keyConsumerExpirationTime is Java CoreOptions.CONSUMER_EXPIRATION_TIME (no
// default: consumers never expire).
const keyConsumerExpirationTime = "consumer.expiration-time"

// AfterCommit runs the maintenance that is due after a commit that created
// snapshot snapshotID (0: none) with commit identifier identifier
// (commit.Maintainer): in sync mode before it returns, in async mode in the
// background (one run at a time; commits during a run cause one more run).
// A sync call that finds another run going on returns at once: that run or
// the next commit's covers the work. Nothing is read from the store unless
// something is due: snapshot expiration keeps the earliest snapshot id and
// the commit time of its successor in memory, and partition expiration
// waits for partition.expiration-check-interval.
func (m *Maintainer) AfterCommit(ctx context.Context, snapshotID, identifier int64) {
	m.mu.Lock()
	m.latest = max(m.latest, snapshotID)
	if identifier == commit.BatchIdentifier {
		m.endInput = true
	}
	if !m.async {
		m.mu.Unlock()
		if m.run.TryLock() {
			defer m.run.Unlock()
			m.once(ctx)
		}
		return
	}
	if m.inflight {
		m.dirty = true
		m.mu.Unlock()
		return
	}
	m.inflight = true
	m.wg.Add(1)
	m.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer m.wg.Done()
		for {
			m.run.Lock()
			m.once(ctx)
			m.run.Unlock()
			m.mu.Lock()
			if !m.dirty {
				m.inflight = false
				m.mu.Unlock()
				return
			}
			m.dirty = false
			m.mu.Unlock()
		}
	}()
}

// Close waits for a background run (async mode) to finish. The Maintainer
// stays usable. It returns nil: errors are reported as they happen.
func (m *Maintainer) Close() error {
	m.wg.Wait()
	if p := m.parts; p != nil {
		p.close()
	}
	return nil
}

// Stats returns what the Maintainer did so far.
func (m *Maintainer) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// LastError returns the last error reported (nil: none).
func (m *Maintainer) LastError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastErr
}

func (m *Maintainer) report(err error) {
	m.mu.Lock()
	m.stats.Errors++
	m.lastErr = err
	m.mu.Unlock()
	if m.onError != nil {
		m.onError(err)
		return
	}
	slog.Default().Error("paimon: table maintenance after commit failed", "table", m.fio.URL(), "err", err)
}

// once runs the maintenance that is due, snapshots first (Java
// TableCommitImpl.expire). The caller holds m.run.
func (m *Maintainer) once(ctx context.Context) {
	m.mu.Lock()
	latest, endInput, snaps := m.latest, m.endInput, m.snaps && !m.snapsOff
	m.endInput = false
	m.mu.Unlock()
	now := m.now()
	if m.consumerTTL > 0 {
		// Consumers first, so that an expired one no longer holds snapshots
		// back (TableCommitImpl.expire).
		gone, err := consumer.New(m.fio, "").Expire(ctx, now.Add(-m.consumerTTL))
		m.mu.Lock()
		m.stats.ConsumersExpired += len(gone)
		if len(gone) > 0 {
			m.stuckAt = 0
		}
		m.mu.Unlock()
		if err != nil {
			m.report(fmt.Errorf("%w (after snapshot %d): %w", ErrConsumerExpiration, latest, err))
		}
	}
	if snaps {
		if err := m.expireSnapshots(ctx, latest, now); err != nil {
			m.report(fmt.Errorf("%w (after snapshot %d): %w", ErrSnapshotExpiration, latest, err))
		}
	}
	if p := m.parts; p != nil && p.due(now, endInput) {
		if err := p.run(ctx, now); err != nil {
			m.report(fmt.Errorf("%w (after snapshot %d): %w", ErrPartitionExpiration, latest, err))
		}
	}
}

// expireSnapshots runs expire.Expire when a snapshot is due. Whether one
// is due is decided from memory (the earliest id and its successor's commit
// time, read once per expiration): with latest the newest id, nothing is
// due while latest − earliest + 1 ≤ snapshot.num-retained.min; else
// something is when the count exceeds snapshot.num-retained.max or the
// successor of the earliest snapshot was committed before now −
// snapshot.time-retained (ExpireSnapshotsImpl's rules). Other processes'
// expirations only make the cache lag behind, which costs one run that
// finds less to do.
func (m *Maintainer) expireSnapshots(ctx context.Context, latest int64, now time.Time) error {
	if latest <= 0 {
		return nil
	}
	olderThan := now.Add(-m.timeRetained)
	due, err := m.snapshotsDue(ctx, latest, olderThan)
	if err != nil || !due {
		return err
	}
	m.mu.Lock()
	m.stats.SnapshotRuns++
	m.mu.Unlock()
	res, err := expire.Expire(ctx, m.fio, m.ts, expire.Options{OlderThan: olderThan, Now: m.now})
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.SnapshotsExpired += len(res.Expired)
	m.succTime = -1
	if err != nil {
		m.earliest = 0 // read it again next time
		if errors.Is(err, expire.ErrUnsupported) || errors.Is(err, expire.ErrInvalidArgument) {
			// The table's options rule expiration out: say so once.
			m.snapsOff = true
			err = fmt.Errorf("snapshot expiration is off for this committer: %w", err)
		}
		return err
	}
	m.earliest = res.Earliest
	m.stuckAt = 0
	if len(res.Expired) == 0 {
		// Held back by a consumer, or expired by someone else meanwhile:
		// look again after num-retained.min more snapshots.
		m.stuckAt = latest
	}
	return nil
}

func (m *Maintainer) snapshotsDue(ctx context.Context, latest int64, olderThan time.Time) (bool, error) {
	m.mu.Lock()
	earliest, succ, stuck := m.earliest, m.succTime, m.stuckAt
	m.mu.Unlock()
	if stuck > 0 && latest < stuck+int64(max(1, m.retainMin)) {
		return false, nil
	}
	if earliest == 0 || earliest > latest {
		id, err := m.sm.EarliestID(ctx)
		if errors.Is(err, snapshot.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		earliest, succ = id, -1
		m.mu.Lock()
		m.earliest, m.succTime = earliest, -1
		m.mu.Unlock()
	}
	n := latest - earliest + 1
	switch {
	case n <= int64(m.retainMin):
		return false, nil
	case n > int64(m.retainMax):
		return true, nil
	}
	if succ < 0 {
		s, err := m.sm.Get(ctx, earliest+1)
		if errors.Is(err, snapshot.ErrNotFound) {
			return true, nil // a gap or a concurrent expiration: let Expire sort it out
		}
		if err != nil {
			return false, err
		}
		succ = s.TimeMillis
		m.mu.Lock()
		if m.earliest == earliest {
			m.succTime = succ
		}
		m.mu.Unlock()
	}
	return succ < olderThan.UnixMilli(), nil
}
