package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/schema"
)

// durationFlag parses a --older-than style value as Paimon durations are
// written ("1 h", "30min", "2d"; package schema ParseDuration).
func durationFlag(name, text string) (time.Duration, error) {
	d, err := schema.ParseDuration(text)
	if err != nil {
		return 0, usageError{fmt.Errorf("--%s: %w", name, err)}
	}
	return d, nil
}

func newExpireCmd() *cobra.Command {
	var (
		olderThan                string
		retainMin, retainMax, mx int
		dryRun                   bool
		opts                     expire.Options
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
			opts = expire.Options{Branch: branchOf(cmd), RetainMin: retainMin, RetainMax: retainMax, MaxDeletes: mx, DryRun: dryRun}
			if fl.Changed("older-than") {
				d, err := durationFlag("older-than", olderThan)
				if err != nil {
					return err
				}
				opts.OlderThan = time.Now().Add(-d)
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			res, err := expire.Expire(ctx, t.FileIO(), t.Schema(), opts)
			out := cmd.OutOrStdout()
			verb := "deleted"
			if dryRun {
				verb = "would delete"
			}
			for _, p := range res.Deleted {
				fmt.Fprintln(out, verb, p)
			}
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
			return nil
		}),
	}
	f := cmd.Flags()
	addBranchFlag(cmd, "expire")
	f.IntVar(&retainMin, "retain-min", 0, "minimum number of snapshots to keep, at least 1 (default: snapshot.num-retained.min)")
	f.IntVar(&retainMax, "retain-max", 0, "maximum number of snapshots to keep, at least 1 (default: snapshot.num-retained.max)")
	f.IntVar(&mx, "max-deletes", 0, "maximum number of snapshots to expire, at least 1 (default: snapshot.expire.limit)")
	f.StringVar(&olderThan, "older-than", "", "expire snapshots replaced longer ago than this, e.g. 1h (default: snapshot.time-retained)")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be deleted without deleting")
	return cmd
}
