package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// durationHelp is the syntax note of the duration flags' help.
const durationHelp = "Paimon syntax (1d, 2 h, 30min, 500 ms) or Go syntax (1h30m, 1.5h)"

// durationFlag parses the value of a duration flag (--older-than,
// --time-retained): as Paimon writes durations first ("1 h", "30min", "2d";
// schema.ParseDuration, Java TimeUtils.parseDuration), then as Go does
// ("1h30m", "1.5h"; time.ParseDuration). Negative durations and values
// neither accepts are usage errors.
func durationFlag(name, text string) (time.Duration, error) {
	d, err := schema.ParseDuration(text)
	if err != nil {
		var gerr error
		if d, gerr = time.ParseDuration(strings.TrimSpace(text)); gerr != nil {
			return 0, usageError{fmt.Errorf("--%s %q: not a duration; write it in %s", name, text, durationHelp)}
		}
	}
	if d < 0 {
		return 0, usageError{fmt.Errorf("--%s %q: must not be negative", name, text)}
	}
	return d, nil
}

// checkRetain checks --retain-min or --retain-max, when only one is given,
// against the table's effective other option
// (snapshot.num-retained.max / .min), whose conflict expire.Expire would
// report as an internal argument error. Conflicts are usage errors.
func checkRetain(ts *schema.TableSchema, minSet bool, retainMin int, maxSet bool, retainMax int) error {
	switch {
	case minSet && maxSet:
		return nil // checked against each other before the table was opened
	case maxSet:
		tableMin, err := ts.Options.SnapshotNumRetainedMin()
		if err != nil {
			return err
		}
		if retainMax < tableMin {
			return usageError{fmt.Errorf("--retain-max %d is below the table's %s (%d); give --retain-min too",
				retainMax, schema.KeySnapshotNumRetainedMin, tableMin)}
		}
	case minSet:
		tableMax, err := ts.Options.SnapshotNumRetainedMax()
		if err != nil {
			return err
		}
		if retainMin > tableMax {
			return usageError{fmt.Errorf("--retain-min %d is above the table's %s (%d); give --retain-max too",
				retainMin, schema.KeySnapshotNumRetainedMax, tableMax)}
		}
	}
	return nil
}

// printSkipped warns, on standard error, of the files expire or rollback
// left alone because the metadata names them unsafely (expire.Skipped).
func printSkipped(cmd *cobra.Command, skipped []expire.Skipped) {
	for _, s := range skipped {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: skipped %s: %s\n", s.Path, s.Reason)
	}
}

func newExpireCmd() *cobra.Command {
	var (
		olderThan                string
		retainMin, retainMax, mx int
		dryRun                   bool
		opts                     expire.Options
		retainMinSet             bool
		retainMaxSet             bool
	)
	cmd := &cobra.Command{
		Use:   "expire URL",
		Short: "Expire old snapshots and delete the files only they use",
		Long: "Expire old snapshots of a table by its snapshot.num-retained.min/max, snapshot.time-retained and\n" +
			"snapshot.expire.limit options (or the flags), deleting the data files, manifests and offsets files\n" +
			"that no kept snapshot or tag uses. Prints one line per deleted file, then a summary.",
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			// Given values must be at least 1, as Java requires of
			// snapshot.num-retained.min/max and snapshot.expire.limit
			// (SchemaValidation, ExpireSnapshotsImpl); expire.Options reads
			// 0 as "the table option".
			for _, c := range []struct {
				name string
				v    int
			}{{"retain-min", retainMin}, {"retain-max", retainMax}, {"max-deletes", mx}} {
				if fl.Changed(c.name) && c.v < 1 {
					return usageError{fmt.Errorf("--%s must be at least 1, got %d", c.name, c.v)}
				}
			}
			if fl.Changed("retain-min") && fl.Changed("retain-max") && retainMax < retainMin {
				return usageError{fmt.Errorf("--retain-max (%d) must not be less than --retain-min (%d)", retainMax, retainMin)}
			}
			retainMinSet, retainMaxSet = fl.Changed("retain-min"), fl.Changed("retain-max")
			opts = expire.Options{Branch: branchOf(cmd), RetainMin: retainMin, RetainMax: retainMax, MaxDeletes: mx, DryRun: dryRun, Reporter: reporterOf(cmd)}
			if fl.Changed("older-than") {
				d, err := durationFlag("older-than", olderThan)
				if err != nil {
					return err
				}
				opts.OlderThan = time.Now().Add(-d)
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			if err := checkRetain(t.Schema(), retainMinSet, retainMin, retainMaxSet, retainMax); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			// Java's ExpireSnapshotsImpl returns before any check when
			// there is no snapshot.
			if _, err := t.Snapshots().LatestID(ctx); errors.Is(err, snapshot.ErrNotFound) {
				_, err = fmt.Fprintln(out, "no snapshot expired: the table has no snapshots")
				return err
			} else if err != nil {
				return err
			}
			res, err := expire.Expire(ctx, t.FileIO(), t.Schema(), opts)
			verb := "deleted"
			if dryRun {
				verb = "would delete"
			}
			for _, p := range res.Deleted {
				fmt.Fprintln(out, verb, p)
			}
			printSkipped(cmd, res.Skipped)
			if err != nil {
				return err
			}
			switch n := len(res.Expired); {
			case n == 0:
				fmt.Fprintf(out, "no snapshot expired; earliest snapshot is %d\n", res.Earliest)
			case dryRun:
				fmt.Fprintf(out, "would expire %d snapshots (%d to %d); earliest snapshot would be %d\n", n, res.Expired[0], res.Expired[n-1], res.Earliest)
			default:
				fmt.Fprintf(out, "expired %d snapshots (%d to %d); earliest snapshot is %d\n", n, res.Expired[0], res.Expired[n-1], res.Earliest)
			}
			if n := len(res.KeptChangelogs); n > 0 && !dryRun {
				fmt.Fprintf(out, "kept the changelog of %d expired snapshots in changelog/ (%d to %d)\n", n, res.KeptChangelogs[0], res.KeptChangelogs[n-1])
			}
			if n := len(res.ExpiredChangelogs); n > 0 {
				v := "expired"
				if dryRun {
					v = "would expire"
				}
				fmt.Fprintf(out, "%s %d long-lived changelogs (%d to %d)\n", v, n, res.ExpiredChangelogs[0], res.ExpiredChangelogs[n-1])
			}
			return nil
		}),
	}
	f := cmd.Flags()
	addBranchFlag(cmd, "expire")
	f.IntVar(&retainMin, "retain-min", 0, "minimum number of snapshots to keep, at least 1 (default: snapshot.num-retained.min)")
	f.IntVar(&retainMax, "retain-max", 0, "maximum number of snapshots to keep, at least 1 (default: snapshot.num-retained.max)")
	f.IntVar(&mx, "max-deletes", 0, "maximum number of snapshots to expire, at least 1 (default: snapshot.expire.limit)")
	f.StringVar(&olderThan, "older-than", "", "expire snapshots replaced longer ago than this, in "+durationHelp+" (default: snapshot.time-retained)")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be deleted without deleting")
	return cmd
}
