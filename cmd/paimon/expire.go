package main

import (
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
		branch, olderThan        string
		retainMin, retainMax, mx int
		dryRun                   bool
	)
	cmd := &cobra.Command{
		Use:   "expire URL",
		Short: "Expire old snapshots and delete the files only they use",
		Long: "Expire old snapshots of a table by its snapshot.num-retained.min/max, snapshot.time-retained and\n" +
			"snapshot.expire.limit options (or the flags), deleting the data files, manifests and offsets files\n" +
			"that no kept snapshot or tag uses. Prints one line per deleted file, then a summary.",
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := expire.Options{Branch: branch, RetainMin: retainMin, RetainMax: retainMax, MaxDeletes: mx, DryRun: dryRun}
			if retainMin < 0 || retainMax < 0 || mx < 0 {
				return usageError{fmt.Errorf("--retain-min, --retain-max and --max-deletes must not be negative")}
			}
			if cmd.Flags().Changed("older-than") {
				d, err := durationFlag("older-than", olderThan)
				if err != nil {
					return err
				}
				opts.OlderThan = time.Now().Add(-d)
			}
			t, err := paimon.OpenTable(ctx, args[0], paimon.WithBranch(branch))
			if err != nil {
				return err
			}
			defer t.Close()
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
		},
	}
	f := cmd.Flags()
	f.StringVar(&branch, "branch", "", "branch to expire (default main)")
	f.IntVar(&retainMin, "retain-min", 0, "minimum number of snapshots to keep (default: snapshot.num-retained.min)")
	f.IntVar(&retainMax, "retain-max", 0, "maximum number of snapshots to keep (default: snapshot.num-retained.max)")
	f.IntVar(&mx, "max-deletes", 0, "maximum number of snapshots to expire (default: snapshot.expire.limit)")
	f.StringVar(&olderThan, "older-than", "", "expire snapshots replaced longer ago than this, e.g. 1h (default: snapshot.time-retained)")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be deleted without deleting")
	return cmd
}
