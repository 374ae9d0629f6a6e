package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/orphan"
)

func newCleanOrphansCmd() *cobra.Command {
	var (
		olderThan string
		dryRun    bool
		external  bool
		age       time.Duration
	)
	cmd := &cobra.Command{
		Use:   "clean-orphans URL",
		Short: "Delete files no snapshot, tag or branch of the table uses",
		Long: "Delete the files of a table that no snapshot, tag, changelog or branch refers to and that are older\n" +
			"than --older-than (default 1 day, as Java's remove_orphan_files). Unreadable metadata aborts the run\n" +
			"before anything is deleted. Prints one line per deleted file, then a summary.\n\n" +
			"Commits, compactions, expirations and tag changes may run meanwhile: the candidates are listed\n" +
			"first, and the snapshots, tags and changelogs are then read until a listing finds none unread,\n" +
			"so files that snapshots committed during the run carry forward are kept.\n\n" +
			"Files that writers are writing and have not committed yet are not referenced either: keep\n" +
			"--older-than well above the longest write-and-commit of any writer of the table, or a running\n" +
			"writer's files are deleted and its commit fails (or, with a tiny threshold, publishes a\n" +
			"snapshot naming deleted files).\n\n" +
			"Files below the data-file.external-paths roots are left alone unless --external-paths is given:\n" +
			"the layout below a root does not name the table, so if another table writes there too, its files\n" +
			"would be taken for orphans (Java's remove_orphan_files deletes them).",
		Args: exactlyOneURL,
		RunE: onTable(func(*cobra.Command, []string) error {
			var err error
			age, err = durationFlag("older-than", olderThan)
			return err
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			res, err := orphan.Clean(ctx, t.FileIO(), age, orphan.Options{DryRun: dryRun, ExternalPaths: external})
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
			fmt.Fprintf(out, "%s %d orphan files (%d bytes)\n", verb, len(res.Deleted), res.Bytes)
			return nil
		}),
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "1d", "only delete files last modified longer ago than this, in "+durationHelp)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the orphan files without deleting them")
	cmd.Flags().BoolVar(&external, "external-paths", false, "also clean below the table's data-file.external-paths roots (only if no other table writes there)")
	return cmd
}
