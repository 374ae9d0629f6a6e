package main

import (
	"fmt"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
)

func newSnapshotsCmd() *cobra.Command {
	var branch string
	cmd := &cobra.Command{
		Use:   "snapshots URL",
		Short: "List the snapshots of a table",
		Args:  exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := paimon.OpenTable(ctx, args[0], paimon.WithBranch(branch))
			if err != nil {
				return err
			}
			defer t.Close()
			snaps, err := t.Snapshots().List(ctx)
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
		},
	}
	cmd.Flags().StringVar(&branch, "branch", "", "branch to read (default main)")
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
	var branch string
	cmd := &cobra.Command{
		Use:   "schema URL",
		Short: "Print a schema file of a table (the latest by default) as JSON",
		Args:  exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := paimon.OpenTable(ctx, args[0], paimon.WithBranch(branch))
			if err != nil {
				return err
			}
			defer t.Close()
			ts := t.Schema()
			if id >= 0 {
				if ts, err = t.Schemas().Get(ctx, id); err != nil {
					return err
				}
			}
			data, err := ts.Encode()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(data))
			return err
		},
	}
	cmd.Flags().Int64Var(&id, "id", -1, "schema id (default: latest)")
	cmd.Flags().StringVar(&branch, "branch", "", "branch to read (default main)")
	return cmd
}

func newFilesCmd() *cobra.Command {
	var sf scanFlags
	cmd := &cobra.Command{
		Use:   "files URL",
		Short: "List the live data files of a snapshot, per partition and bucket",
		Args:  exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := paimon.OpenTable(ctx, args[0], paimon.WithBranch(sf.branch))
			if err != nil {
				return err
			}
			defer t.Close()
			sf.snapshotSet = cmd.Flags().Changed("snapshot")
			opts, err := sf.options()
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
		},
	}
	sf.register(cmd, false)
	return cmd
}

func newCatCmd() *cobra.Command {
	var sf scanFlags
	var formatName string
	cmd := &cobra.Command{
		Use:   "cat URL",
		Short: "Print the rows of a table",
		Args:  exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			f, err := rowfmt.ParseFormat(formatName)
			if err != nil {
				return usageError{err}
			}
			t, err := paimon.OpenTable(ctx, args[0], paimon.WithBranch(sf.branch))
			if err != nil {
				return err
			}
			defer t.Close()
			sf.snapshotSet = cmd.Flags().Changed("snapshot")
			opts, err := sf.options()
			if err != nil {
				return err
			}
			plan, err := t.NewScan(opts...).Plan(ctx)
			if err != nil {
				return err
			}
			w, err := rowfmt.NewWriter(cmd.OutOrStdout(), f, &rowfmt.Options{Fields: plan.Fields})
			if err != nil {
				return err
			}
			wrote := false
			for rec, err := range plan.Records(ctx) {
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
		},
	}
	sf.register(cmd, true)
	cmd.Flags().StringVar(&formatName, "format", "table", "output format: jsonl, csv or table")
	return cmd
}

// scanFlags are the flags shared by files and cat.
type scanFlags struct {
	snapshot  int64
	tag       string
	branch    string
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
	cmd.Flags().StringVar(&f.branch, "branch", "", "branch to read (default main)")
	if rows {
		cmd.Flags().BoolVar(&f.allLevels, "all-levels", false, "merge level-0 files too on deletion-vector and first-row tables")
		cmd.Flags().StringVar(&f.columns, "columns", "", "comma-separated columns to print (default: all)")
	}
	cmd.Flags().IntVar(&f.bucket, "bucket", -1, "read only this bucket of every partition")
	cmd.Flags().StringVar(&f.where, "where", "", "filter, e.g. \"f1 = 10 AND f3 > 15\"")
}

func (f *scanFlags) options() ([]reader.Option, error) {
	var opts []reader.Option
	if f.snapshotSet && f.snapshot <= 0 {
		return nil, usageError{fmt.Errorf("--snapshot must be a snapshot id >= 1, got %d", f.snapshot)}
	}
	if f.snapshotSet && f.tag != "" {
		return nil, usageError{fmt.Errorf("--snapshot and --tag both choose the snapshot; give one")}
	}
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
	return opts, nil
}
