package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

func newCompactCmd() *cobra.Command {
	var (
		partitions  []string
		full        bool
		manifests   bool
		parallelism int
	)
	cmd := &cobra.Command{
		Use:   "compact URL",
		Short: "Compact a table's files (or only its manifests) and commit a COMPACT snapshot",
		Long: "Compact the table's buckets as its options pick (universal compaction for primary-key tables,\n" +
			"small-file compaction for append tables), or completely with --full, and commit the result as\n" +
			"one COMPACT snapshot (Java's compact action). --partition k=v[,k2=v2] limits it to the partitions\n" +
			"a spec selects; repeat it to select several. Prints the new snapshot id, or that nothing was due.\n" +
			"--manifests instead rewrites the latest snapshot's manifests into as few as possible, with the\n" +
			"ADD and DELETE entries of each file netted, touching no data file (Java's compact_manifest\n" +
			"procedure), and prints how many manifests the snapshot had and has.",
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, _ []string) error {
			if parallelism < 1 {
				return usageError{fmt.Errorf("--parallelism must be at least 1")}
			}
			if manifests && (full || len(partitions) > 0) {
				return usageError{fmt.Errorf("--manifests compacts the manifests of the whole table; it takes neither --full nor --partition")}
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			if manifests {
				return compactManifests(ctx, cmd.OutOrStdout(), t)
			}
			opts := compaction.Options{Full: full, Parallelism: parallelism, Reporter: reporterOf(cmd)}
			for _, p := range partitions {
				kv := map[string]string{}
				for _, part := range strings.Split(p, ",") {
					k, v, ok := strings.Cut(part, "=")
					if !ok || k == "" {
						return usageError{fmt.Errorf("--partition %q: want k=v[,k2=v2]", p)}
					}
					if _, dup := kv[k]; dup {
						return usageError{fmt.Errorf("--partition %q: key %q given twice (repeat --partition to compact several partitions)", p, k)}
					}
					kv[k] = v
				}
				spec, err := commit.ParsePartitionSpec(t.Schema(), kv)
				if err != nil {
					// One line: the flag, then the reason without the
					// "commit: invalid argument: " prefix.
					why := strings.TrimPrefix(err.Error(), commit.ErrInvalidArgument.Error()+": ")
					return usageError{cliError{fmt.Sprintf("--partition %q: %s", p, why), err}}
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
		}),
	}
	f := cmd.Flags()
	f.StringArrayVar(&partitions, "partition", nil, "partition spec k=v[,k2=v2] to compact (repeatable; default all)")
	f.BoolVar(&full, "full", false, "compact every bucket completely (primary keys into the highest level)")
	f.BoolVar(&manifests, "manifests", false, "compact only the manifests of the latest snapshot (no data file is rewritten)")
	f.IntVar(&parallelism, "parallelism", 2, "buckets rewritten at once")
	return cmd
}

// compactManifests runs commit.Committer.CompactManifests on t and prints
// the new snapshot with the number of manifests before (base and delta
// manifest lists of the snapshot it replaced, the one id below) and after
// (its base manifest list; its delta list is empty).
func compactManifests(ctx context.Context, out io.Writer, t *paimon.Table) error {
	cm, err := t.NewCommit("paimon-go-compact-" + uuid.NewString())
	if err != nil {
		return err
	}
	defer cm.Close()
	id, err := cm.CompactManifests(ctx)
	if err != nil {
		return err
	}
	if id == 0 {
		_, err = fmt.Fprintln(out, "nothing to compact")
		return err
	}
	// The counts are informational: the snapshot is published even when
	// they cannot be read (say, snapshot id-1 expired meanwhile).
	sm := t.Snapshots()
	before, berr := manifestCount(ctx, t, sm, id-1, true)
	after, aerr := manifestCount(ctx, t, sm, id, false)
	if berr != nil || aerr != nil {
		_, err = fmt.Fprintf(out, "snapshot %d: manifests compacted\n", id)
		return err
	}
	_, err = fmt.Fprintf(out, "snapshot %d: manifests compacted (%d manifests -> %d)\n", id, before, after)
	return err
}

// manifestCount returns the number of manifests in the base manifest list
// of snapshot id, plus those of its delta list when delta is set.
func manifestCount(ctx context.Context, t *paimon.Table, sm *snapshot.Manager, id int64, delta bool) (int, error) {
	s, err := sm.Get(ctx, id)
	if err != nil {
		return 0, err
	}
	lists := []string{s.BaseManifestList}
	if delta {
		lists = append(lists, s.DeltaManifestList)
	}
	n := 0
	for _, name := range lists {
		metas, err := manifest.ReadManifestList(ctx, t.FileIO(), name)
		if err != nil {
			return 0, err
		}
		n += len(metas)
	}
	return n, nil
}
