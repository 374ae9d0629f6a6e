package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
)

func newTagCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tag (create|delete|list)",
		Short: "Create, delete and list the tags of a table",
	}
	cmd.AddCommand(newTagCreateCmd(), newTagDeleteCmd(), newTagListCmd())
	return cmd
}

// urlAndName checks the positional arguments URL NAME.
func urlAndName(_ *cobra.Command, args []string) error {
	if len(args) != 2 {
		return usageError{fmt.Errorf("expected a table URL and a tag name, got %d arguments", len(args))}
	}
	return nil
}

func newTagCreateCmd() *cobra.Command {
	var (
		id       int64
		retained string
		opts     tag.CreateOptions
	)
	cmd := &cobra.Command{
		Use:   "create URL NAME",
		Short: "Tag a snapshot (the latest by default)",
		Args:  urlAndName,
		RunE: onTable(func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("snapshot") && id <= 0 {
				return usageError{fmt.Errorf("--snapshot must be a snapshot id >= 1, got %d", id)}
			}
			opts = tag.CreateOptions{Branch: branchOf(cmd)}
			if retained != "" {
				d, err := durationFlag("time-retained", retained)
				if err != nil {
					return err
				}
				opts.TimeRetained = d
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, args []string) error {
			if _, err := t.Snapshots().LatestID(ctx); errors.Is(err, snapshot.ErrNotFound) {
				return cliError{fmt.Sprintf("cannot create tag %s: the table has no snapshots", args[1]), err}
			} else if err != nil {
				return err
			}
			tg, err := tag.Create(ctx, t.FileIO(), t.Schema(), args[1], id, opts)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "created tag %s of snapshot %d\n", tg.Name, tg.ID)
			return err
		}),
	}
	cmd.Flags().Int64Var(&id, "snapshot", 0, "snapshot id to tag (default: latest)")
	addBranchFlag(cmd, "tag")
	cmd.Flags().StringVar(&retained, "time-retained", "", "retention time recorded with the tag, in "+durationHelp+" (default: tag.default-time-retained)")
	return cmd
}

func newTagDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete URL NAME",
		Short: "Delete a tag, and the files only it kept when its snapshot has expired",
		Args:  urlAndName,
		RunE: onTable(nil, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, args []string) error {
			res, err := tag.Delete(ctx, t.FileIO(), t.Schema(), args[1], tag.DeleteOptions{Branch: branchOf(cmd)})
			out := cmd.OutOrStdout()
			if res.Tag != nil {
				fmt.Fprintf(out, "deleted tag %s of snapshot %d\n", res.Tag.Name, res.Tag.ID)
			}
			for _, p := range res.Deleted {
				fmt.Fprintln(out, "deleted", p)
			}
			printSkipped(cmd, res.Skipped)
			return err
		}),
	}
	addBranchFlag(cmd, "delete the tag of")
	return cmd
}

func newTagListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list URL",
		Short: "List the tags of a table",
		Long: "List the tags of a table. Times are shown without a zone, as Java's $tags system table shows\n" +
			"them: SNAPSHOT_TIME (the tagged snapshot's commit time) in UTC, CREATE_TIME as the tag file records\n" +
			"it, the creator's wall-clock time (UTC when paimon-go created the tag, the JVM's zone for Java).",
		Args: exactlyOneURL,
		RunE: onTable(nil, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			tags, err := tag.List(ctx, t.FileIO(), branchOf(cmd))
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSNAPSHOT\tSNAPSHOT_TIME\tCREATE_TIME\tTIME_RETAINED\tTOTAL_RECORDS")
			for _, tg := range tags {
				created, retained := "-", "-"
				if tg.CreateTime != nil {
					created = tg.CreateTime.Format("2006-01-02T15:04:05.000")
				}
				if tg.TimeRetained != nil {
					retained = tg.TimeRetained.String()
				}
				fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%d\n", tg.Name, tg.ID,
					time.UnixMilli(tg.TimeMillis).UTC().Format("2006-01-02T15:04:05.000"), created, retained, tg.TotalRecordCount)
			}
			return w.Flush()
		}),
	}
	addBranchFlag(cmd, "list the tags of")
	return cmd
}
