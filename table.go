// Package paimon is the front door of paimon-go: open an Apache Paimon table
// on any blob store and read it as Arrow record batches.
//
//	t, err := paimon.OpenTable(ctx, "file:///data/warehouse/db.db/orders")
//	plan, err := t.NewScan(reader.WithColumns("id", "amount")).Plan(ctx)
//	for rec, err := range plan.Records(ctx) { ... }
//
// Tables are byte-compatible with Java Paimon (Flink, Spark, Trino),
// pypaimon and paimon-cpp. The packages below it do the work: fileio (the
// store), schema and snapshot (metadata), manifest (file lists), format
// (Parquet and ORC data files), merge (merge engines) and reader (scan
// planning and split reading).
package paimon

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// ErrTableNotExist is returned by OpenTable when the location holds no
// table (no schema/schema-N file).
var ErrTableNotExist = errors.New("paimon: table does not exist")

// Table is an open Paimon table: a root location and its latest schema.
// It is safe for concurrent use.
//
// A Table keeps a reader.Cache of reader.DefaultCacheBytes (64 MiB of
// decoded manifest entries) that every scan of NewScan shares, so planning
// the table again reads only the manifest files written since; see Cache.
type Table struct {
	fio    *fileio.FileIO
	schema *schema.TableSchema
	branch string
	cache  *reader.Cache
	// maintenance configures the Maintainer of NewCommit.
	maintenance maintain.Options
	// reporter receives the reports of the table's scans, commits and
	// real-time contexts (WithReporter); nil: none.
	reporter metrics.Reporter

	lookupMu   sync.Mutex
	lookupPlan *reader.Plan // the unfiltered plan Lookup narrows, of its snapshot
}

// TableOption configures OpenTable.
type TableOption func(*Table)

// WithMaintenance sets the options of the Maintainer that the committers of
// NewCommit run after every commit (package maintain): where errors go, the
// clock, the time zone of partition times.
func WithMaintenance(o maintain.Options) TableOption { return func(t *Table) { t.maintenance = o } }

// WithReporter hands r the metrics reports of the table's work: a
// metrics.ScanReport per plan of NewScan (and of Lookup's planning), a
// metrics.CommitReport per commit of NewCommit's committers, and a
// metrics.RealtimeReport per commit of NewRealtimeContext's contexts. An
// option among the opts of those methods replaces it.
func WithReporter(r metrics.Reporter) TableOption { return func(t *Table) { t.reporter = r } }

// WithBranch opens branch name (branch/branch-<name>) instead of main.
func WithBranch(name string) TableOption { return func(t *Table) { t.branch = name } }

// OpenTable opens the table whose root (the folder holding schema/ and
// snapshot/) is at url: file:// (or a plain local path), mem://, s3://, or
// gs:// and azblob:// with their driver imported (fileio/gcs, fileio/azure),
// as fileio.Open accepts. It reads the latest schema of the branch.
//
// The schema's option values are checked as catalog.ValidateOptions does:
// a malformed value (an unparseable number, duration, memory size, boolean
// or enum, or a count out of Java's range such as
// snapshot.num-retained.min = 0) is refused here, with an error naming the
// option and the value. Unknown options and well-formed values of features
// paimon-go does not implement are accepted, so tables Java wrote open and
// read; writers and compaction refuse what they cannot do when asked.
//
// Errors wrap ErrTableNotExist when there is no schema file;
// catalog.ErrInvalidSchema together with schema.ErrInvalidOption for a
// malformed option value; or the errors of fileio.Open and schema decoding.
func OpenTable(ctx context.Context, url string, opts ...TableOption) (*Table, error) {
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	t := &Table{fio: fio, cache: reader.NewCache(reader.DefaultCacheBytes)}
	for _, o := range opts {
		o(t)
	}
	sm := schema.NewManager(t.branchFileIO(), "")
	ts, err := sm.Latest(ctx)
	if err != nil {
		_ = fio.Close()
		if errors.Is(err, fileio.ErrNotExist) {
			if t.branch != "" && t.branch != schema.MainBranch {
				return nil, fmt.Errorf("%w: %s has no branch %q: %w", ErrTableNotExist, fileio.Redact(url), t.branch, err)
			}
			return nil, fmt.Errorf("%w: %s: %w", ErrTableNotExist, fileio.Redact(url), err)
		}
		if errors.Is(err, schema.ErrInvalidOption) {
			// Decoding already refused an option (the bucket count).
			return nil, fmt.Errorf("%w: %s: %w", catalog.ErrInvalidSchema, fileio.Redact(url), err)
		}
		return nil, err
	}
	if err := catalog.ValidateOptions(ts); err != nil {
		_ = fio.Close()
		return nil, fmt.Errorf("paimon: open %s (schema %d): %w", fileio.Redact(url), ts.ID, err)
	}
	t.schema = ts
	if _, ok := ts.Options[schema.KeyLookupCacheMaxMemorySize]; ok {
		n, err := ts.Options.LookupCacheMaxMemorySize()
		if err != nil {
			_ = fio.Close()
			return nil, fmt.Errorf("paimon: open %s (schema %d): %w", fileio.Redact(url), ts.ID, err)
		}
		t.cache.LookupFiles().SetMaxBytes(n)
	}
	return t, nil
}

func (t *Table) branchFileIO() *fileio.FileIO {
	if t.branch == "" || t.branch == schema.MainBranch {
		return t.fio
	}
	return t.fio.Sub("branch/branch-" + t.branch)
}

// Schema returns the latest schema of the table's branch, as read at open.
func (t *Table) Schema() *schema.TableSchema { return t.schema }

// Snapshots returns the snapshot and tag manager of the table's branch.
func (t *Table) Snapshots() *snapshot.Manager { return snapshot.NewManager(t.branchFileIO()) }

// Schemas returns the schema manager of the table's branch.
func (t *Table) Schemas() *schema.Manager { return schema.NewManager(t.branchFileIO(), "") }

// FileIO returns the table root's file system (main branch).
func (t *Table) FileIO() *fileio.FileIO { return t.fio }

// NewScan starts a batch scan of the table's branch; see package reader for
// the options (snapshot, tag, timestamp, filter, columns, all levels). The
// scan reads manifests through the table's Cache; a reader.WithCache option
// among opts replaces it.
func (t *Table) NewScan(opts ...reader.Option) *reader.Scan {
	pre := []reader.Option{reader.WithCache(t.cache)}
	if t.reporter != nil {
		pre = append(pre, reader.WithReporter(t.reporter))
	}
	if t.branch != "" {
		pre = append(pre, reader.WithBranch(t.branch))
	}
	return reader.NewScan(t.fio, append(pre, opts...)...)
}

// Lookup returns the current rows of the primary keys in keys (a batch of
// the primary key columns, one key per row; reader.KeyFilter), read from the
// branch's latest snapshot, or the one opts choose: one row per key found,
// none for a missing key, with the columns of opts (reader.WithColumns;
// every column by default). Only partitions and files whose statistics may
// hold a key are read (Java TableQuery.lookup reads the key's bucket).
// The caller releases the batch. Errors: reader.ErrInvalidScan for keys
// that do not fit the table, and those of planning and reading.
//
// Lookups without options keep the plan of the latest snapshot and narrow
// it to each lookup's keys (reader.Plan.Narrow) while the latest snapshot
// stays (one read of the LATEST hint and one existence check per lookup,
// as Java's LocalTableQuery refreshes on a new snapshot); the data files
// they read stay decoded in the table's lookup cache (reader.LookupCache,
// lookup.cache-max-memory-size).
func (t *Table) Lookup(ctx context.Context, keys arrow.RecordBatch, opts ...reader.Option) (arrow.RecordBatch, error) {
	if len(opts) == 0 {
		p, err := t.narrowedLookup(ctx, keys)
		if err == nil {
			return reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
		}
		if !errors.Is(err, reader.ErrInvalidScan) && !errors.Is(err, snapshot.ErrNotFound) {
			return nil, err
		}
		// A table without snapshots, a plan Narrow does not take
		// (fallback branch, postpone merge-on-read) or keys that do not fit
		// (the scan reports them again).
	}
	return t.NewScan(opts...).Lookup(ctx, keys)
}

// narrowedLookup returns the kept plan of the latest snapshot (planned
// again when the LATEST hint moved) narrowed to keys.
func (t *Table) narrowedLookup(ctx context.Context, keys arrow.RecordBatch) (*reader.Plan, error) {
	id, err := t.Snapshots().LatestID(ctx)
	if err != nil {
		return nil, err
	}
	t.lookupMu.Lock()
	p := t.lookupPlan
	t.lookupMu.Unlock()
	if p == nil || p.Snapshot == nil || p.Snapshot.ID != id {
		if p, err = t.NewScan().Plan(ctx); err != nil {
			return nil, err
		}
		if p.Snapshot == nil {
			return nil, fmt.Errorf("paimon: lookup: %w", snapshot.ErrNotFound)
		}
		t.lookupMu.Lock()
		if t.lookupPlan == nil || t.lookupPlan.Snapshot.ID < p.Snapshot.ID {
			t.lookupPlan = p
		}
		t.lookupMu.Unlock()
	}
	return p.Narrow(ctx, keys)
}

// Cache returns the table's cache of decoded manifest files, shared by the
// scans of NewScan (and usable with reader.WithCache by other scans of this
// table, such as a real-time context's).
func (t *Table) Cache() *reader.Cache { return t.cache }

// Close releases the table's store connection.
func (t *Table) Close() error { return t.fio.Close() }

// ErrBranchWrite is returned by NewWrite and NewCommit on a table opened on
// a branch other than main: writing branches is not supported yet.
var ErrBranchWrite = errors.New("paimon: writing to a branch is not supported")

// NewWrite starts a batch or streaming write into the table, as commitUser
// (Java BatchWriteBuilder.newWrite / StreamWriteBuilder.newWrite): Write
// Arrow batches, then PrepareCommit returns the commit messages to hand to
// NewCommit(commitUser).Commit. See package writer for the input shape and
// errors.
func (t *Table) NewWrite(commitUser string, opts ...writer.Option) (*writer.Write, error) {
	if t.branch != "" && t.branch != schema.MainBranch {
		return nil, fmt.Errorf("%w: %s", ErrBranchWrite, t.branch)
	}
	return writer.New(t.fio, t.schema, commitUser, opts...)
}

// NewCommit returns the committer that publishes commit messages as
// snapshots (Java TableCommitImpl); see package commit. Call Close on it when
// done: it finishes background hint, manifest-list and maintenance work.
//
// As in Java, the committer expires snapshots and partitions after every
// successful commit by the table's options (package maintain; write-only =
// true turns it off). Maintenance errors never fail a commit: they are
// logged, or handed to the OnError of WithMaintenance.
// commit.WithMaintainer among opts replaces the Maintainer (nil: none).
// The committer offers the manifest files it writes to the table's Cache
// (commit.WithManifestCache), so the table's scans plan its snapshots
// without reading them back.
func (t *Table) NewCommit(commitUser string, opts ...commit.Option) (*commit.Committer, error) {
	if t.branch != "" && t.branch != schema.MainBranch {
		return nil, fmt.Errorf("%w: %s", ErrBranchWrite, t.branch)
	}
	m, err := maintain.New(t.fio, t.schema, commitUser, t.maintenance)
	if err != nil {
		return nil, err
	}
	// The table's scans then plan what it commits without reading the
	// files it wrote (commit.WithManifestCache).
	pre := []commit.Option{commit.WithManifestCache(t.cache.Manifests())}
	if m.Enabled() {
		pre = append(pre, commit.WithMaintainer(m))
	}
	if t.reporter != nil {
		pre = append(pre, commit.WithReporter(t.reporter))
	}
	return commit.New(t.fio, t.schema, commitUser, append(pre, opts...)...)
}
