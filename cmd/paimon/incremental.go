package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon/reader"
)

// incrementalFlags are cat's incremental-read flags (Java
// incremental-between, incremental-between-timestamp,
// incremental-between-scan-mode) and --rowkind (Java's audit_log rowkind
// column).
type incrementalFlags struct {
	between   string
	timestamp string
	mode      string
	rowKind   bool
}

func (f *incrementalFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.between, "incremental", "", "read the changes after snapshot FROM up to snapshot TO: FROM,TO (snapshot ids, or two tag names)")
	cmd.Flags().StringVar(&f.timestamp, "incremental-timestamp", "", "read the changes of the snapshots committed after FROM up to TO: FROM,TO (epoch milliseconds)")
	cmd.Flags().StringVar(&f.mode, "incremental-mode", "", "what an incremental read reads: auto (default), delta, changelog or diff")
	cmd.Flags().BoolVar(&f.rowKind, "rowkind", false, "print a first column rowkind (+I, -U, +U, -D) as Java's audit_log table")
}

// check validates the flags against each other and the snapshot flags.
func (f *incrementalFlags) check(cmd *cobra.Command, sf *scanFlags) error {
	if f.between != "" && f.timestamp != "" {
		return usageError{fmt.Errorf("--incremental and --incremental-timestamp both give the range; give one")}
	}
	if f.between == "" && f.timestamp == "" {
		if f.mode != "" {
			return usageError{fmt.Errorf("--incremental-mode needs --incremental or --incremental-timestamp")}
		}
		return nil
	}
	if sf.snapshotSet || sf.tag != "" {
		return usageError{fmt.Errorf("--snapshot and --tag cannot be combined with an incremental read")}
	}
	for name, v := range map[string]string{"--incremental": f.between, "--incremental-timestamp": f.timestamp} {
		if v != "" && len(strings.Split(v, ",")) != 2 {
			return usageError{fmt.Errorf("%s must be FROM,TO, got %q", name, v)}
		}
	}
	switch reader.IncrementalMode(f.mode) {
	case "", reader.IncrementalAuto, reader.IncrementalDelta, reader.IncrementalChangelog, reader.IncrementalDiff:
	default:
		return usageError{fmt.Errorf("--incremental-mode must be auto, delta, changelog or diff, got %q", f.mode)}
	}
	return nil
}

// options returns the scan options of the flags.
func (f *incrementalFlags) options() []reader.Option {
	var opts []reader.Option
	if f.rowKind {
		opts = append(opts, reader.WithRowKind())
	}
	m := map[string]string{}
	if f.between != "" {
		m[reader.KeyIncrementalBetween] = f.between
	}
	if f.timestamp != "" {
		m[reader.KeyIncrementalBetweenTimestamp] = f.timestamp
	}
	if len(m) == 0 {
		return opts
	}
	if f.mode != "" {
		m[reader.KeyIncrementalBetweenScanMode] = f.mode
	}
	return append(opts, reader.WithIncrementalOptions(m))
}
