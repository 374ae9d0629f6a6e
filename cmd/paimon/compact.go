package main

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
)

func newCompactCmd() *cobra.Command {
	var (
		partitions  []string
		full        bool
		parallelism int
	)
	cmd := &cobra.Command{
		Use:   "compact URL",
		Short: "Compact a table's files and commit a COMPACT snapshot",
		Long: "Compact the table's buckets as its options pick (universal compaction for primary-key tables,\n" +
			"small-file compaction for append tables), or completely with --full, and commit the result as\n" +
			"one COMPACT snapshot (Java's compact action). --partition k=v[,k2=v2] limits it to the partitions\n" +
			"a spec selects; repeat it to select several. Prints the new snapshot id, or that nothing was due.",
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if parallelism < 1 {
				return usageError{fmt.Errorf("--parallelism must be at least 1")}
			}
			t, err := paimon.OpenTable(ctx, args[0])
			if err != nil {
				return err
			}
			defer t.Close()
			opts := compaction.Options{Full: full, Parallelism: parallelism}
			for _, p := range partitions {
				kv := map[string]string{}
				for _, part := range strings.Split(p, ",") {
					k, v, ok := strings.Cut(part, "=")
					if !ok || k == "" {
						return usageError{fmt.Errorf("--partition %q: want k=v[,k2=v2]", p)}
					}
					kv[k] = v
				}
				spec, err := commit.ParsePartitionSpec(t.Schema(), kv)
				if err != nil {
					return usageError{fmt.Errorf("--partition %q: %w", p, err)}
				}
				opts.Partitions = append(opts.Partitions, spec)
			}
			id, err := compaction.Compact(ctx, t.FileIO(), t.Schema(), "paimon-go-compact-"+uuid.NewString(), opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if id == 0 {
				fmt.Fprintln(out, "nothing to compact")
				return nil
			}
			fmt.Fprintf(out, "committed COMPACT snapshot %d\n", id)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&partitions, "partition", nil, "partition spec k=v[,k2=v2] to compact (repeatable; default all)")
	f.BoolVar(&full, "full", false, "compact every bucket completely (primary keys into the highest level)")
	f.IntVar(&parallelism, "parallelism", 2, "buckets rewritten at once")
	return cmd
}
