package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/snapshot"
)

func newSnapshotsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshots URL",
		Short: "List the snapshots of a table",
		Args:  exactlyOneURL,
		RunE: onMeta(func(ctx context.Context, cmd *cobra.Command, m *tableMeta, _ []string) error {
			snaps, err := m.snapshots().List(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tSCHEMA\tKIND\tTIME\tTOTAL_RECORDS\tDELTA_RECORDS\tCOMMIT_USER\tCOMMIT_IDENTIFIER")
			for _, s := range snaps {
				fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%d\t%d\t%s\t%d\n", s.ID, s.SchemaID, s.CommitKind,
					time.UnixMilli(s.TimeMillis).UTC().Format("2006-01-02T15:04:05.000Z"),
					s.TotalRecordCount, s.DeltaRecordCount, s.CommitUser, s.CommitIdentifier)
			}
			return w.Flush()
		}),
	}
	addBranchFlag(cmd, "read")
	return cmd
}

func optInt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func newSchemaCmd() *cobra.Command {
	var id int64 = -1
	cmd := &cobra.Command{
		Use:   "schema URL",
		Short: "Print a schema file of a table (the latest by default) as JSON",
		Long: "Print a schema file of a table (the latest by default) as JSON. Its option values are not\n" +
			"checked, so a schema whose options the other commands refuse can be inspected (and fixed with\n" +
			"'paimon alter'); a file that does not decode at all (a malformed bucket count) is printed as stored.",
		Args: exactlyOneURL,
		RunE: onMeta(func(ctx context.Context, cmd *cobra.Command, m *tableMeta, _ []string) error {
			sm := m.schemas()
			if id < 0 {
				ids, err := sm.List(ctx)
				if err != nil {
					return err
				}
				id = ids[len(ids)-1]
			}
			var data []byte
			ts, err := sm.Get(ctx, id)
			switch {
			case errors.Is(err, schema.ErrInvalidOption):
				// Decoding refused an option (the bucket count): show
				// the file as it is.
				if data, err = m.branch.ReadFile(ctx, sm.Path(id)); err != nil {
					return err
				}
				data = bytes.TrimRight(data, "\n")
			case err != nil:
				return err
			default:
				if data, err = ts.Encode(); err != nil {
					return err
				}
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(data))
			return err
		}),
	}
	cmd.Flags().Int64Var(&id, "id", -1, "schema id (default: latest)")
	addBranchFlag(cmd, "read")
	return cmd
}

func newFilesCmd() *cobra.Command {
	var sf scanFlags
	cmd := &cobra.Command{
		Use:   "files URL",
		Short: "List the live data files of a snapshot, per partition and bucket",
		Args:  exactlyOneURL,
		RunE: onTable(sf.check, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			opts, err := sf.open(ctx, t)
			if err != nil {
				return err
			}
			plan, err := t.NewScan(append(opts, reader.WithAllLevels())...).Plan(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PATH\tLEVEL\tROWS\tBYTES\tMIN_SEQ\tMAX_SEQ\tSCHEMA\tDELETES\tDELETION_VECTOR")
			for _, sp := range plan.Splits {
				for _, f := range sp.Files {
					dv := "-"
					if d, ok := sp.DeletionFiles[f.FileName]; ok {
						dv = fmt.Sprintf("index/%s@%d+%d", d.IndexFile, d.Offset, d.Length)
					}
					fmt.Fprintf(w, "%s/%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", sp.BucketPath, f.FileName, f.Level, f.RowCount,
						f.FileSize, f.MinSequenceNumber, f.MaxSequenceNumber, f.SchemaID, optInt(f.DeleteRowCount), dv)
				}
			}
			return w.Flush()
		}),
	}
	sf.register(cmd, false)
	return cmd
}

func newCatCmd() *cobra.Command {
	var (
		sf         scanFlags
		inc        incrementalFlags
		formatName string
		f          rowfmt.Format
		rt         bool
	)
	cmd := &cobra.Command{
		Use:   "cat URL",
		Short: "Print the rows of a table",
		Args:  exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, args []string) error {
			var err error
			if f, err = rowfmt.ParseFormat(formatName); err != nil {
				return usageError{err}
			}
			if err := sf.check(cmd, args); err != nil {
				return err
			}
			return inc.check(cmd, &sf)
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			opts, err := sf.open(ctx, t)
			if err != nil {
				return err
			}
			var (
				plan    *reader.Plan
				records iter.Seq2[arrow.RecordBatch, error]
			)
			if rt {
				if sf.snapshotSet || sf.tag != "" || len(inc.options()) > 0 {
					return usageError{errors.New("--realtime reads the server's snapshot and memory: it takes no --snapshot, --tag or --incremental")}
				}
				u, err := serve.OpenUnion(ctx, t, serve.UnionOptions{Token: os.Getenv(tokenEnv)}, opts...)
				if err != nil {
					return serverError(err)
				}
				plan, records = u.Plan, u.Records(ctx)
			} else {
				if plan, err = t.NewScan(append(opts, inc.options()...)...).Plan(ctx); err != nil {
					return err
				}
				records = plan.Records(ctx)
			}
			w, err := rowfmt.NewWriter(cmd.OutOrStdout(), f, &rowfmt.Options{Fields: plan.Fields})
			if err != nil {
				return err
			}
			wrote := false
			for rec, err := range records {
				if err != nil {
					return err
				}
				werr := w.Write(rec)
				rec.Release()
				if werr != nil {
					return werr
				}
				wrote = true
			}
			if !wrote && f != rowfmt.JSONL {
				// No rows: still print the header (and the table's row count).
				b := array.NewRecordBuilder(memory.DefaultAllocator, plan.ArrowSchema())
				empty := b.NewRecordBatch()
				b.Release()
				werr := w.Write(empty)
				empty.Release()
				if werr != nil {
					return werr
				}
			}
			return w.Close()
		}),
	}
	sf.register(cmd, true)
	inc.register(cmd)
	cmd.Flags().StringVar(&formatName, "format", "table", "output format: jsonl, csv or table")
	cmd.Flags().BoolVar(&rt, "realtime", false, "read the committed snapshot with the rows the table's paimon serve server holds above it (token from $"+tokenEnv+")")
	return cmd
}

// scanFlags are the flags shared by files and cat.
type scanFlags struct {
	snapshot  int64
	tag       string
	allLevels bool
	where     string
	columns   string
	bucket    int
	// snapshotSet records that --snapshot was given (0 is then an error).
	snapshotSet bool
}

func (f *scanFlags) register(cmd *cobra.Command, rows bool) {
	cmd.Flags().Int64Var(&f.snapshot, "snapshot", 0, "snapshot id to read (default: latest)")
	cmd.Flags().StringVar(&f.tag, "tag", "", "tag to read")
	addBranchFlag(cmd, "read")
	if rows {
		cmd.Flags().BoolVar(&f.allLevels, "all-levels", false, "merge level-0 files too on deletion-vector and first-row tables")
		cmd.Flags().StringVar(&f.columns, "columns", "", "comma-separated columns to print (default: all)")
	}
	cmd.Flags().IntVar(&f.bucket, "bucket", -1, "read only this bucket of every partition (0 to the table's bucket count - 1)")
	cmd.Flags().StringVar(&f.where, "where", "", "filter, e.g. \"f1 = 10 AND f3 > 15\"")
}

// check validates the flags (usage errors).
func (f *scanFlags) check(cmd *cobra.Command, _ []string) error {
	f.snapshotSet = cmd.Flags().Changed("snapshot")
	if f.snapshotSet && f.snapshot <= 0 {
		return usageError{fmt.Errorf("--snapshot must be a snapshot id >= 1, got %d", f.snapshot)}
	}
	if f.snapshotSet && f.tag != "" {
		return usageError{fmt.Errorf("--snapshot and --tag both choose the snapshot; give one")}
	}
	if cmd.Flags().Changed("bucket") && f.bucket < 0 {
		return usageError{fmt.Errorf("--bucket must be a bucket number >= 0, got %d", f.bucket)}
	}
	if cmd.Flags().Lookup("columns") != nil && cmd.Flags().Changed("columns") {
		if _, err := columnList(f.columns); err != nil {
			return err
		}
	}
	return nil
}

// columnList parses a --columns value given on the command line: names
// separated by commas, at least one, none twice.
func columnList(v string) ([]string, error) {
	var cols []string
	seen := map[string]bool{}
	for _, c := range strings.Split(v, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if seen[c] {
			return nil, usageError{fmt.Errorf("--columns names %q twice", c)}
		}
		seen[c] = true
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, usageError{fmt.Errorf("--columns %q names no column (leave it out to print every column)", v)}
	}
	return cols, nil
}

// checkBucket reports a --bucket that no file of the table can have, as a
// usage error: on fixed-bucket tables 0 to bucket-1, on bucket-unaware
// append tables (bucket = -1; every file is in bucket 0) only 0. Dynamic-
// bucket (bucket = -1 with a primary key) and postpone-bucket (-2) tables
// have no fixed range: any bucket number is accepted there.
func checkBucket(ts *schema.TableSchema, bucket int) error {
	n, err := ts.NumBuckets()
	if err != nil {
		return err
	}
	switch {
	case n > 0 && bucket >= n:
		return usageError{fmt.Errorf("--bucket %d: the table has %d buckets (0 to %d)", bucket, n, n-1)}
	case n == -1 && len(ts.PrimaryKeys) == 0 && bucket != 0:
		return usageError{fmt.Errorf("--bucket %d: the table is bucket-unaware (bucket = -1): all its files are in bucket 0", bucket)}
	}
	return nil
}

// open checks that the --snapshot id (checkSnapshotID) or the --tag
// exists in t and that --bucket fits the table (checkBucket), and returns
// the scan options of the flags.
func (f *scanFlags) open(ctx context.Context, t *paimon.Table) ([]reader.Option, error) {
	if f.bucket >= 0 {
		if err := checkBucket(t.Schema(), f.bucket); err != nil {
			return nil, err
		}
	}
	if f.snapshotSet {
		if err := checkSnapshotID(ctx, t.Snapshots(), f.snapshot); err != nil {
			return nil, err
		}
	}
	if f.tag != "" {
		if _, err := t.Snapshots().Tag(ctx, f.tag); errors.Is(err, snapshot.ErrNotFound) {
			return nil, cliError{fmt.Sprintf("tag %q does not exist", f.tag), err}
		}
	}
	return f.options(), nil
}

// options returns the scan options of the checked flags.
func (f *scanFlags) options() []reader.Option {
	var opts []reader.Option
	if f.snapshot != 0 {
		opts = append(opts, reader.WithSnapshot(f.snapshot))
	}
	if f.tag != "" {
		opts = append(opts, reader.WithTag(f.tag))
	}
	if f.bucket >= 0 {
		opts = append(opts, reader.WithBucket(int32(f.bucket)))
	}
	if f.allLevels {
		opts = append(opts, reader.WithAllLevels())
	}
	if f.columns != "" {
		var cols []string
		for _, c := range strings.Split(f.columns, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		opts = append(opts, reader.WithColumns(cols...))
	}
	if f.where != "" {
		opts = append(opts, reader.WithWhere(f.where))
	}
	return opts
}
