package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/expire"
)

func newRollbackCmd() *cobra.Command {
	var (
		to          int64
		tagName     string
		deleteFiles bool
	)
	cmd := &cobra.Command{
		Use:   "rollback URL (--to N | --tag NAME)",
		Short: "Make an earlier snapshot or a tag the latest snapshot",
		Long: "Roll a table back to snapshot --to or to tag --tag: newer snapshots and the tags of newer snapshots\n" +
			"are removed; the files only they used are left to clean-orphans, as Java Paimon 1.2+ does, or\n" +
			"deleted too with --delete-files. Prints what was removed.",
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, _ []string) error {
			toSet := cmd.Flags().Changed("to")
			if toSet == (tagName != "") {
				return usageError{fmt.Errorf("give exactly one of --to and --tag")}
			}
			if toSet && to <= 0 {
				return usageError{fmt.Errorf("--to must be a snapshot id >= 1, got %d", to)}
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			res, err := expire.Rollback(ctx, t.FileIO(), t.Schema(), expire.Target{Snapshot: to, Tag: tagName},
				expire.RollbackOptions{Branch: branchOf(cmd), DeleteFiles: deleteFiles})
			out := cmd.OutOrStdout()
			if res.Created {
				fmt.Fprintf(out, "recreated snapshot %d from tag %s\n", res.Snapshot, tagName)
			}
			for _, id := range res.Snapshots {
				fmt.Fprintln(out, "removed snapshot", id)
			}
			for _, name := range res.Tags {
				fmt.Fprintln(out, "removed tag", name)
			}
			for _, p := range res.Deleted {
				fmt.Fprintln(out, "deleted", p)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "rolled back to snapshot %d\n", res.Snapshot)
			return nil
		}),
	}
	f := cmd.Flags()
	f.Int64Var(&to, "to", 0, "snapshot id to roll back to")
	f.StringVar(&tagName, "tag", "", "tag to roll back to")
	addBranchFlag(cmd, "roll back")
	f.BoolVar(&deleteFiles, "delete-files", false, "also delete the files only the removed snapshots and tags used (Java before 1.2)")
	return cmd
}
