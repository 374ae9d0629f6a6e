package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/snapshot"
)

// cliError gives err the one line the CLI prints instead of its chain of
// wrapped messages; errors.Is and errors.As still see err.
type cliError struct {
	msg string
	err error
}

func (e cliError) Error() string { return e.msg }
func (e cliError) Unwrap() error { return e.err }

// addBranchFlag registers the --branch flag that openTable (and branchOf)
// read; what says what the command does with the branch ("read", ...).
func addBranchFlag(cmd *cobra.Command, what string) {
	cmd.Flags().String("branch", "", "branch to "+what+" (default main)")
}

// branchOf returns the value of the command's --branch flag ("" for main,
// also when the command has no such flag).
func branchOf(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("branch"); f != nil {
		return f.Value.String()
	}
	return ""
}

// openTable opens the table at url on the command's --branch (paimon.OpenTable
// with paimon.WithBranch). A missing table or branch is reported as one line
// naming url that still matches paimon.ErrTableNotExist.
func openTable(ctx context.Context, cmd *cobra.Command, url string) (*paimon.Table, error) {
	branch := branchOf(cmd)
	t, err := paimon.OpenTable(ctx, url, paimon.WithBranch(branch))
	if errors.Is(err, paimon.ErrTableNotExist) {
		if branch != "" && branch != "main" {
			return nil, cliError{fmt.Sprintf("table %s has no branch %q", url, branch), err}
		}
		return nil, cliError{fmt.Sprintf("table %s does not exist (no schema file)", url), err}
	}
	return t, err
}

// tableRun is the body of a subcommand working on the table of args[0].
type tableRun func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, args []string) error

// onTable returns the RunE of a subcommand whose first argument is a table
// URL: check (nil for none) validates the flags first, so that usage errors
// come before any I/O; then the table is opened with openTable, run gets
// it, and it is closed when run returns.
func onTable(check func(cmd *cobra.Command, args []string) error, run tableRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if check != nil {
			if err := check(cmd, args); err != nil {
				return err
			}
		}
		ctx := cmd.Context()
		t, err := openTable(ctx, cmd, args[0])
		if err != nil {
			return err
		}
		defer t.Close()
		return run(ctx, cmd, t, args)
	}
}

// checkSnapshotID reports, as one line wrapping snapshot.ErrNotFound, a
// snapshot id the table does not have: below the earliest snapshot
// (expired; an interrupted expiration may have left its snapshot file
// behind with its manifests gone) or above the latest.
func checkSnapshotID(ctx context.Context, sm *snapshot.Manager, id int64) error {
	earliest, err := sm.EarliestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return cliError{fmt.Sprintf("snapshot %d does not exist (the table has no snapshots)", id), err}
	}
	if err != nil {
		return err
	}
	if id < earliest {
		return cliError{fmt.Sprintf("snapshot %d is expired (earliest is %d)", id, earliest), snapshot.ErrNotFound}
	}
	latest, err := sm.LatestID(ctx)
	if err != nil {
		return err
	}
	if id > latest {
		return cliError{fmt.Sprintf("snapshot %d does not exist (latest is %d)", id, latest), snapshot.ErrNotFound}
	}
	return nil
}

// snapshotRange prints ids as "snapshot A" or "snapshots A..B" ("no
// snapshot" when empty); ids ascend.
func snapshotRange(ids []int64) string {
	switch len(ids) {
	case 0:
		return "no snapshot"
	case 1:
		return fmt.Sprintf("snapshot %d", ids[0])
	}
	return fmt.Sprintf("snapshots %d..%d", ids[0], ids[len(ids)-1])
}
