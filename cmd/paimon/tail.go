package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// rowKindKey is the JSON key of each printed row's kind.
const rowKindKey = "_ROW_KIND"

// tailFlags are the flags of paimon tail.
type tailFlags struct {
	from, consumerID, formatName, where, columns, interval string
}

func newTailCmd() *cobra.Command {
	var f tailFlags
	var opts stream.Options
	cmd := &cobra.Command{
		Use:   "tail URL",
		Short: "Print a table's changes as they are committed, until SIGINT or SIGTERM",
		Long: `Print a table's changes as they are committed: one JSON object per row,
its kind under "_ROW_KIND" (+I, -U, +U, -D) and its columns, one snapshot at a
time, polling for new snapshots every --interval. SIGINT and SIGTERM stop it
with exit status 0.

--from says where to start: latest (the default: only changes committed from
now on), full (the latest snapshot's rows, then changes), earliest (the
changes of every snapshot still kept), snapshot:N (the changes from snapshot
N on), timestamp:T (the changes committed at or after T, epoch milliseconds
or RFC 3339). With --consumer ID the progress is kept in the table's consumer
file consumer-ID after each snapshot is printed (and keeps expiration from
removing unread snapshots); a restart resumes there, whatever --from says.`,
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, args []string) error {
			if _, err := rowfmt.ParseFormat(f.formatName); err != nil || f.formatName != "jsonl" {
				return usageError{fmt.Errorf("--format: only jsonl is supported, got %q", f.formatName)}
			}
			d, err := durationFlag("interval", f.interval)
			if err != nil {
				return err
			}
			if d <= 0 {
				return usageError{fmt.Errorf("--interval must be positive, got %q", f.interval)}
			}
			opts.Interval = d
			return parseFrom(f.from, &opts)
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			return runTail(ctx, cmd, t, f, opts)
		}),
	}
	addBranchFlag(cmd, "follow")
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "latest", "where to start: latest, full, earliest, snapshot:N or timestamp:T")
	fl.StringVar(&f.consumerID, "consumer", "", "consumer id whose progress is kept in the table (resumed on restart)")
	fl.StringVar(&f.formatName, "format", "jsonl", "output format: jsonl")
	fl.StringVar(&f.where, "where", "", "filter, e.g. \"f1 = 10 AND f3 > 15\"")
	fl.StringVar(&f.columns, "columns", "", "comma-separated columns to print (default: all)")
	fl.StringVar(&f.interval, "interval", "1s", "how often to look for new snapshots, in "+durationHelp)
	return cmd
}

// parseFrom sets the starting mode of --from.
func parseFrom(from string, o *stream.Options) error {
	kind, arg, _ := strings.Cut(from, ":")
	switch {
	case from == "latest":
		o.Mode = stream.ModeLatest
	case from == "full":
		o.Mode = stream.ModeLatestFull
	case from == "earliest":
		o.Mode = stream.ModeFromSnapshot // SnapshotID resolved on the table
	case kind == "snapshot":
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || n < 1 {
			return usageError{fmt.Errorf("--from snapshot:N needs a snapshot id >= 1, got %q", arg)}
		}
		o.Mode, o.SnapshotID = stream.ModeFromSnapshot, n
	case kind == "timestamp":
		ms, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			ts, terr := time.Parse(time.RFC3339Nano, arg)
			if terr != nil {
				return usageError{fmt.Errorf("--from timestamp:T needs epoch milliseconds or an RFC 3339 time, got %q", arg)}
			}
			ms = ts.UnixMilli()
		}
		o.Mode, o.TimestampMillis = stream.ModeFromTimestamp, ms
	default:
		return usageError{fmt.Errorf("--from must be latest, full, earliest, snapshot:N or timestamp:T, got %q", from)}
	}
	return nil
}

func runTail(ctx context.Context, cmd *cobra.Command, t *paimon.Table, f tailFlags, o stream.Options) error {
	branch := branchOf(cmd)
	o.Branch, o.ConsumerID = branch, f.consumerID
	if o.Mode == stream.ModeFromSnapshot && o.SnapshotID == 0 { // --from earliest
		id, err := t.Snapshots().EarliestID(ctx)
		switch {
		case errors.Is(err, snapshot.ErrNotFound):
			o.Mode = stream.ModeLatest // no snapshot yet: every one is new
		case err != nil:
			return err
		default:
			o.SnapshotID = id
			// A decoupled changelog lifecycle keeps the changes of expired
			// snapshots in changelog/: earliest starts there.
			if cp, _ := t.Schema().Options.ChangelogProducer(); cp != schema.ChangelogNone && len(t.Schema().PrimaryKeys) > 0 {
				if cl, err := t.Snapshots().Changelogs().EarliestID(ctx); err == nil && cl < id {
					o.SnapshotID = cl
				}
			}
		}
	}
	src := &stream.ReaderSource{FIO: t.FileIO(), Table: t.Schema(), Opts: []reader.Option{reader.WithBranch(branch)}}
	if f.where != "" {
		src.Opts = append(src.Opts, reader.WithWhere(f.where))
	}
	if f.columns != "" || cmd.Flags().Changed("columns") {
		cols, err := columnList(f.columns)
		if err != nil {
			return err
		}
		src.Columns = cols
	}
	fields := t.Schema().Fields
	if len(src.Columns) > 0 {
		fields = nil
		for _, c := range src.Columns {
			i := slicesIndex(t.Schema().Fields, c)
			if i < 0 {
				return usageError{fmt.Errorf("--columns: the table has no column %q", c)}
			}
			fields = append(fields, t.Schema().Fields[i])
		}
	}
	fields = append([]types.DataField{{Name: rowKindKey, Type: types.String()}}, fields...)
	out := bufio.NewWriter(cmd.OutOrStdout())
	w, err := rowfmt.NewWriter(out, rowfmt.JSONL, &rowfmt.Options{Fields: fields})
	if err != nil {
		return err
	}
	fol := stream.New(t.FileIO(), t.Schema(), src, o)
	for {
		s, err := fol.Next(ctx)
		if err != nil {
			if ctx.Err() != nil { // SIGINT or SIGTERM: a clean stop
				return nil
			}
			return err
		}
		for _, b := range s.Batches {
			r := renameRowKind(b)
			werr := w.Write(r)
			r.Release()
			if werr != nil {
				s.Release()
				return werr
			}
		}
		s.Release()
		if err := out.Flush(); err != nil {
			return err
		}
		// The snapshot is printed whole: record the progress past it.
		if err := fol.Checkpoint(context.WithoutCancel(ctx), s.Next); err != nil {
			return err
		}
	}
}

func slicesIndex(fs []types.DataField, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// renameRowKind returns b with its first column named _ROW_KIND; it shares
// b's arrays (b stays owned by the caller).
func renameRowKind(b arrow.RecordBatch) arrow.RecordBatch {
	fs := b.Schema().Fields()
	fs[0] = arrow.Field{Name: rowKindKey, Type: fs[0].Type, Nullable: fs[0].Nullable}
	return array.NewRecordBatch(arrow.NewSchema(fs, nil), b.Columns(), b.NumRows())
}
