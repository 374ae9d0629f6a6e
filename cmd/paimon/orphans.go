package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/orphan"
)

func newCleanOrphansCmd() *cobra.Command {
	var (
		olderThan string
		dryRun    bool
	)
	cmd := &cobra.Command{
		Use:   "clean-orphans URL",
		Short: "Delete files no snapshot, tag or branch of the table uses",
		Long: "Delete the files of a table that no snapshot, tag, changelog or branch refers to and that are older\n" +
			"than --older-than (default 1 day, as Java's remove_orphan_files). Unreadable metadata aborts the run\n" +
			"before anything is deleted. Prints one line per deleted file, then a summary.",
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := durationFlag("older-than", olderThan)
			if err != nil {
				return err
			}
			t, err := paimon.OpenTable(ctx, args[0])
			if err != nil {
				return err
			}
			defer t.Close()
			res, err := orphan.Clean(ctx, t.FileIO(), d, orphan.Options{DryRun: dryRun})
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
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "1d", "only delete files last modified longer ago than this, e.g. 1h")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the orphan files without deleting them")
	return cmd
}
