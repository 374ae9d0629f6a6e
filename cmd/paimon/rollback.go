package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/tag"
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
			"deleted too with --delete-files. Prints what was removed. Stop the table's writers first (as\n" +
			"for Java's rollback_to): a writer that keeps running must Restore. The files kept are younger than\n" +
			"clean-orphans' default threshold of 1 day; pass a smaller --older-than to remove them sooner.",
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
				fmt.Fprintf(out, "recreated snapshot %d from %s\n", res.Snapshot, tagOf(ctx, t, branchOf(cmd), tagName, res.Snapshot))
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
			printSkipped(cmd, res.Skipped)
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

// tagOf names the tag a rollback recreated snapshot id from, as "tag
// <name>": name when the rollback was to a tag; for a rollback to a
// snapshot id that only a tag still held (expire.RollbackResult does not
// say which), the tags of that id ("tags a, b" when several), or "its tag"
// when they cannot be listed.
func tagOf(ctx context.Context, t *paimon.Table, branch, name string, id int64) string {
	if name != "" {
		return "tag " + name
	}
	tags, err := tag.List(ctx, t.FileIO(), branch)
	var names []string
	for _, tg := range tags {
		if tg.ID == id {
			names = append(names, tg.Name)
		}
	}
	switch {
	case err != nil || len(names) == 0:
		return "its tag"
	case len(names) == 1:
		return "tag " + names[0]
	}
	return "tags " + strings.Join(names, ", ")
}
