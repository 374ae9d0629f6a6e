package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// errImportSchema marks an input file whose columns do not match the table.
var errImportSchema = errors.New("input does not match the table")

// batchSource yields Arrow batches of the table's columns; Next returns
// io.EOF after the last one.
type batchSource interface {
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}

type importFlags struct {
	create      bool
	table       tableFlags
	formatName  string
	batchRows   int
	commitEvery int64
	limit       int64
}

func newImportCmd() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import URL FILE.parquet|FILE.jsonl",
		Short: "Write the rows of a Parquet or JSONL file into a table",
		Long: `Stream a Parquet or JSON Lines file into the table at URL through the
table writer and commit (one snapshot at the end, or one every
--commit-every rows).

Parquet columns are matched to table columns by name (by field id when the
file carries Paimon field ids) and converted by the table reader's widening
rules; JSONL lines are objects in the form 'paimon cat --format jsonl'
prints. Every file column must be a table column; a Parquet file must have
every table column, while a JSONL line may leave out nullable columns
(they are null).

With --create the table is created first when it does not exist, from the
same flags as 'paimon create'; without --schema/--column a Parquet file's
own columns define it. The table (schema-0) stays when a later row fails;
no rows are published when the import fails before its first commit.
--commit-every N commits after the first batch that brings the uncommitted
rows to N or more; batches are at most --batch-rows rows (and never larger
than N). When such an import fails (or is interrupted) after some commits,
it prints what was committed before the error. Interrupted by SIGINT or
SIGTERM, it stops at once, deletes its temporary files and the data files
of rows not yet committing (a commit cut short may leave unreferenced files
for 'paimon clean-orphans'; never a partial snapshot), and exits with 130 or 143 after one line on stderr that says what was
committed: "interrupted by SIGTERM: imported 200 rows in 2 commits
(snapshots 1..2); later rows were not imported". A commit whose rows were
committed but whose compaction lost to a concurrent one ('paimon compact')
prints a warning on stderr and the import goes on.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("expected a table URL and a file, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runImport(cmd, args[0], args[1], &f) },
	}
	cmd.Flags().BoolVar(&f.create, "create", false, "create the table if it does not exist (with the create flags)")
	f.table.register(cmd)
	cmd.Flags().StringVar(&f.formatName, "format", "", "input format: parquet or jsonl (default: from the file extension)")
	cmd.Flags().IntVar(&f.batchRows, "batch-rows", 8192, "rows per batch handed to the writer")
	cmd.Flags().Int64Var(&f.commitEvery, "commit-every", 0, "commit after every N rows (default: one commit at the end)")
	cmd.Flags().Int64Var(&f.limit, "limit", 0, "import only the first N rows (default: all)")
	return cmd
}

// inputFormat returns "parquet" or "jsonl" from --format or the file name.
func inputFormat(name, flag string) (string, error) {
	v := strings.ToLower(flag)
	if v == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".parquet", ".parq":
			v = "parquet"
		case ".jsonl", ".json", ".ndjson":
			v = "jsonl"
		default:
			return "", usageError{fmt.Errorf("cannot tell the format of %s from its extension; give --format parquet|jsonl", name)}
		}
	}
	switch v {
	case "parquet", "jsonl":
		return v, nil
	case "json", "ndjson":
		return "jsonl", nil
	}
	return "", usageError{fmt.Errorf("--format %q: want parquet or jsonl", flag)}
}

func runImport(cmd *cobra.Command, tableURL, fileName string, f *importFlags) (err error) {
	ctx := cmd.Context()
	var im *importer
	defer func() {
		if err != nil && ctx.Err() != nil {
			// Interrupted: the error line says what was committed.
			if im == nil {
				im = &importer{}
			}
			err = cliError{im.summary() + "; later rows were not imported", err}
		}
	}()
	if f.batchRows <= 0 {
		return usageError{fmt.Errorf("--batch-rows must be positive, got %d", f.batchRows)}
	}
	if f.commitEvery < 0 || f.limit < 0 {
		return usageError{errors.New("--commit-every and --limit must not be negative")}
	}
	if cmd.Flags().Changed("limit") && f.limit == 0 {
		return usageError{errors.New("--limit 0 imports nothing; give N >= 1 (leave it out to import every row)")}
	}
	if f.commitEvery > 0 && int64(f.batchRows) > f.commitEvery {
		f.batchRows = int(f.commitEvery)
	}
	if !f.create && f.table.given() {
		return usageError{errors.New("table definition flags need --create")}
	}
	kind, err := inputFormat(fileName, f.formatName)
	if err != nil {
		return err
	}
	in, err := os.Open(fileName)
	if err != nil {
		return err
	}
	defer in.Close()
	// On interruption, a read blocked on a pipe returns at once.
	defer context.AfterFunc(ctx, func() { in.Close() })()

	t, err := openTable(ctx, cmd, tableURL)
	if errors.Is(err, paimon.ErrTableNotExist) && f.create {
		var derived []types.DataField
		if kind == "parquet" && f.table.schemaFile == "" && len(f.table.columns) == 0 {
			if derived, err = parquetColumns(in, fileName); err != nil {
				return err
			}
		}
		s, err := f.table.definition(derived)
		if err != nil {
			return err
		}
		// Another process creating the table meanwhile is no error (create
		// if it does not exist): the import goes into its table.
		if _, err := createTable(ctx, tableURL, s); err != nil && !errors.Is(err, catalog.ErrTableExist) {
			return err
		}
		t, err = openTable(ctx, cmd, tableURL)
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	defer t.Close()
	fields := t.Schema().Fields

	var src batchSource
	if kind == "parquet" {
		ps, err := newParquetSource(ctx, in, fileName, fields, f.batchRows)
		if err != nil {
			return err
		}
		src = ps
	} else {
		src = &jsonlSource{r: newJSONLReader(in, fields, f.batchRows)}
	}
	defer src.Close()

	user := "paimon-import-" + uuid.NewString()
	w, err := t.NewWrite(user)
	if err != nil {
		return err
	}
	defer w.Close()
	cm, err := t.NewCommit(user)
	if err != nil {
		return err
	}
	defer cm.Close()
	im = &importer{sm: t.Snapshots(), w: w, cm: cm, user: user, commitEvery: f.commitEvery, limit: f.limit, warn: cmd.ErrOrStderr()}
	err = im.run(ctx, src)
	out := cmd.OutOrStdout()
	if err != nil {
		// What is committed stays committed: say so before the error.
		if im.commits > 0 {
			fmt.Fprintf(out, "%s before the error; later rows were not imported\n", im.summary())
		}
		return err
	}
	_, err = fmt.Fprintln(out, im.summary())
	return err
}

// importer writes the batches of a source through one table Write and
// commits them: once at the end (commit.BatchIdentifier), or after every
// batch that brings the uncommitted rows to commitEvery or more (streaming
// commits with identifiers 1, 2, ...). It counts what it committed.
type importer struct {
	sm          *snapshot.Manager
	w           *writer.Write
	cm          *commit.Committer
	user        string // the commit user of w and cm
	commitEvery int64  // 0: one commit at the end
	limit       int64  // 0: every row of the source
	warn        io.Writer

	rows       int64   // rows written
	committed  int64   // rows committed
	pending    int64   // rows written since the last commit
	commits    int     // commits that created snapshots
	snaps      []int64 // the snapshots the import created, ascending
	identifier int64   // the last commit identifier used
}

// summary is the line the import prints: the rows, commits and snapshots
// committed so far.
func (im *importer) summary() string {
	return fmt.Sprintf("imported %d rows in %d commits (%s)", im.committed, im.commits, snapshotRange(im.snaps))
}

// run writes the batches of src (at most limit rows) and commits them.
func (im *importer) run(ctx context.Context, src batchSource) error {
	for im.limit == 0 || im.rows < im.limit {
		rec, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if im.limit > 0 && im.rows+rec.NumRows() > im.limit {
			cut := rec.NewSlice(0, im.limit-im.rows)
			rec.Release()
			rec = cut
		}
		n := rec.NumRows()
		err = im.w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
		im.rows += n
		im.pending += n
		if im.commitEvery > 0 && im.pending >= im.commitEvery {
			if err := im.publish(ctx); err != nil {
				return err
			}
		}
	}
	if im.pending > 0 || im.commits == 0 {
		return im.publish(ctx)
	}
	return nil
}

// publish commits the rows written since the last commit. When the data
// is committed but the writer's compaction is not
// (commit.ErrCompactionNotCommitted: a concurrent compaction, such as
// 'paimon compact --full', rewrote the compaction's input files), it warns,
// restores the writer from the latest snapshot (writer.Write.Restore;
// nothing uncommitted is lost, as every written row was just committed)
// and returns nil, so the import goes on.
func (im *importer) publish(ctx context.Context) error {
	msgs, err := im.w.PrepareCommit(ctx)
	if err != nil {
		return err
	}
	im.identifier++
	id := im.identifier
	if im.commitEvery == 0 {
		id = commit.BatchIdentifier
	}
	base, err := im.sm.LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		base = 0
	} else if err != nil {
		return err
	}
	last, err := im.cm.Commit(ctx, id, msgs)
	compactionLost := errors.Is(err, commit.ErrCompactionNotCommitted)
	// What the commit published is counted even when ctx was canceled
	// meanwhile (an interrupted import must say what it committed), so the
	// snapshots are read without ctx's cancellation.
	rctx := context.WithoutCancel(ctx)
	if err != nil && !compactionLost {
		if ctx.Err() == nil {
			return err
		}
		// Interrupted: the snapshot may have been created all the same.
		latest, lerr := im.sm.LatestID(rctx)
		if lerr != nil || latest <= base {
			return err
		}
		ids, lerr := snapshotsOf(rctx, im.sm, im.user, base, latest)
		if lerr == nil && len(ids) > 0 {
			im.count(ids)
		}
		return err
	}
	if last > 0 {
		// One commit creates an APPEND snapshot and, when the writer
		// compacted, a COMPACT one; Commit returns the last id.
		ids, err := snapshotsOf(rctx, im.sm, im.user, base, last)
		if err != nil {
			// The commit landed (snapshot last is ours) but reading its
			// snapshots back failed: its rows count all the same, or the
			// summary would tell the user to import them again.
			ids = []int64{last}
		}
		im.count(ids)
	} else {
		im.committed += im.pending
		im.pending = 0
	}
	if compactionLost {
		fmt.Fprintf(im.warn, "warning: commit %d: its rows are committed (snapshot %d), its compaction is not: a concurrent compaction rewrote the files it compacted; continuing from the latest snapshot\n",
			im.commits, last)
		if err := im.w.Restore(ctx); err != nil {
			return err
		}
	}
	return nil
}

// count records a commit that created the snapshots ids and published
// the pending rows.
func (im *importer) count(ids []int64) {
	im.snaps = append(im.snaps, ids...)
	im.commits++
	im.committed += im.pending
	im.pending = 0
}

// snapshotsOf returns the ids in (base, last] of the snapshots committed by
// user, ascending: those of one commit, when base was the latest id before
// it and last is the id the commit returned. Snapshots expired meanwhile
// are skipped.
func snapshotsOf(ctx context.Context, sm *snapshot.Manager, user string, base, last int64) ([]int64, error) {
	var ids []int64
	for id := base + 1; id <= last; id++ {
		s, err := sm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.CommitUser == user {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parquetColumns returns the columns of a Parquet file as Paimon fields
// (types.FromArrow of the Arrow schema pqarrow derives).
func parquetColumns(f *os.File, name string) ([]types.DataField, error) {
	sc, err := parquetArrowSchema(f, name)
	if err != nil {
		return nil, err
	}
	out := make([]types.DataField, 0, sc.NumFields())
	for _, af := range sc.Fields() {
		t, err := types.FromArrow(af.Type)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: column %q: %w", errImportSchema, name, af.Name, err)
		}
		out = append(out, types.DataField{Name: af.Name, Type: t.WithNullable(af.Nullable)})
	}
	return out, nil
}

func parquetArrowSchema(f *os.File, name string) (*arrow.Schema, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// A SectionReader, so that closing the Parquet reader leaves f open.
	pf, err := file.NewParquetReader(io.NewSectionReader(f, 0, st.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", format.ErrCorrupt, name, err)
	}
	defer pf.Close()
	sc, err := pqarrow.FromParquet(pf.MetaData().Schema, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", format.ErrCorrupt, name, err)
	}
	return sc, nil
}

// osFile adapts *os.File to format.File.
type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

type parquetSource struct {
	r format.Reader
}

// newParquetSource reads the table's columns from a Parquet file with the
// table reader's Parquet reader: columns are found by name, or by field id
// when the file carries ids (the ids of the same-named file columns are
// asked for), and converted to the table types.
func newParquetSource(ctx context.Context, f *os.File, name string, fields []types.DataField, batchRows int) (*parquetSource, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	sc, err := parquetArrowSchema(f, name)
	if err != nil {
		return nil, err
	}
	fileIDs := map[string]int{}
	var fileNames []string
	for _, af := range sc.Fields() {
		fileNames = append(fileNames, af.Name)
		id := -1
		if v, ok := af.Metadata.GetValue("PARQUET:field_id"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				id = n
			}
		}
		fileIDs[af.Name] = id
	}
	want := make([]types.DataField, len(fields))
	for i, tf := range fields {
		id, ok := fileIDs[tf.Name]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no column %q (file columns %v)", errImportSchema, name, tf.Name, fileNames)
		}
		want[i] = tf
		if id >= 0 {
			want[i].ID = id
		}
	}
	for _, n := range fileNames {
		if !slices.ContainsFunc(fields, func(tf types.DataField) bool { return tf.Name == n }) {
			return nil, fmt.Errorf("%w: column %q of %s is not a table column (table columns %v)", errImportSchema, n, name, types.FieldNames(fields))
		}
	}
	r, err := parquet.NewReader(ctx, osFile{f, st.Size()}, name, want, format.ReadOptions{BatchSize: batchRows})
	if err != nil {
		return nil, err
	}
	return &parquetSource{r: r}, nil
}

func (s *parquetSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := s.r.Next(ctx)
	if err != nil {
		return nil, err
	}
	return b.Record, nil
}

func (s *parquetSource) Close() error { return s.r.Close() }

type jsonlSource struct{ r *jsonlReader }

func (s *jsonlSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.r.Next()
}

func (s *jsonlSource) Close() error { return nil }
