package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/schema"
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

// reporterOf returns the reporter of --metrics: JSON lines on the
// command's standard error (metrics.Slog), or nil without the flag.
func reporterOf(cmd *cobra.Command) metrics.Reporter {
	if on, _ := cmd.Flags().GetBool("metrics"); !on {
		return nil
	}
	return metrics.Slog{Logger: slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))}
}

// openTable opens the table at url on the command's --branch (paimon.OpenTable
// with paimon.WithBranch). A missing table or branch is reported as one line
// naming url that still matches paimon.ErrTableNotExist; a malformed option
// value in the schema (paimon.OpenTable refuses it) as one line naming the
// option and, on the main branch, the alter command that fixes it, still
// matching catalog.ErrInvalidSchema and schema.ErrInvalidOption.
func openTable(ctx context.Context, cmd *cobra.Command, url string) (*paimon.Table, error) {
	branch := branchOf(cmd)
	opts := []paimon.TableOption{paimon.WithBranch(branch)}
	if r := reporterOf(cmd); r != nil {
		opts = append(opts, paimon.WithReporter(r))
	}
	t, err := paimon.OpenTable(ctx, url, opts...)
	switch {
	case errors.Is(err, paimon.ErrTableNotExist):
		return nil, notExist(url, branch, err)
	case errors.Is(err, schema.ErrInvalidOption):
		return nil, malformedOption(url, branch, err)
	}
	return t, err
}

// isBranch reports whether branch names a branch other than main.
func isBranch(branch string) bool { return branch != "" && branch != schema.MainBranch }

// notExist is the one line of a missing table or branch.
func notExist(url, branch string, err error) error {
	url = fileio.Redact(url)
	if errors.Is(err, fileio.ErrNoBucket) {
		return cliError{fmt.Sprintf("table %s does not exist: its bucket or container does not exist", url), err}
	}
	if isBranch(branch) {
		return cliError{fmt.Sprintf("table %s has no branch %q", url, branch), err}
	}
	return cliError{fmt.Sprintf("table %s does not exist (no schema file)", url), err}
}

// malformedOption is the one line of a table whose schema has a malformed
// option value (err wraps schema.ErrInvalidOption): the option, its value
// and why, after the last "invalid table option: " of err's text.
func malformedOption(url, branch string, err error) error {
	url = fileio.Redact(url)
	msg := err.Error()
	sentinel := strings.TrimPrefix(schema.ErrInvalidOption.Error(), "schema: ") + ": "
	if i := strings.LastIndex(msg, sentinel); i >= 0 {
		msg = msg[i+len(sentinel):]
	}
	where := "table " + url
	if isBranch(branch) {
		where += fmt.Sprintf(" (branch %q)", branch)
	}
	line := fmt.Sprintf("%s has a malformed option in its schema: %s", where, msg)
	key := "KEY"
	if k, _, ok := strings.Cut(msg, "="); ok && !strings.ContainsAny(k, " :") {
		key = k
	}
	switch {
	case key == schema.KeyBucket:
		// The schema file does not even decode: nothing can alter it.
		line += " (correct it in the latest schema file by hand)"
	case !isBranch(branch):
		line += fmt.Sprintf(" (fix it with: paimon alter %s --set %s=VALUE)", url, key)
	}
	return cliError{line, err}
}

// tableMeta is the metadata of a table's branch (schema files, snapshots,
// tags) opened without reading its schema options, so that the commands
// that only show metadata work on a table whose options paimon.OpenTable
// refuses.
type tableMeta struct {
	fio *fileio.FileIO // the table root
	// branch is the root of the branch (fio itself for main).
	branch *fileio.FileIO
}

func (m *tableMeta) schemas() *schema.Manager     { return schema.NewManager(m.branch, "") }
func (m *tableMeta) snapshots() *snapshot.Manager { return snapshot.NewManager(m.branch) }
func (m *tableMeta) Close() error                 { return m.fio.Close() }

// openMeta opens the metadata of the table at url on the command's
// --branch; a table (or branch) without schema files is reported as
// openTable reports it.
func openMeta(ctx context.Context, cmd *cobra.Command, url string) (*tableMeta, error) {
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	m := &tableMeta{fio: fio, branch: fio}
	branch := branchOf(cmd)
	if isBranch(branch) {
		m.branch = fio.Sub("branch/branch-" + branch)
	}
	ids, err := m.schemas().List(ctx)
	if err == nil && len(ids) == 0 {
		err = notExist(url, branch, fmt.Errorf("%w: %s", paimon.ErrTableNotExist, fileio.Redact(url)))
	}
	if err != nil {
		_ = fio.Close()
		return nil, err
	}
	return m, nil
}

// onMeta is onTable for the commands that read only metadata (openMeta).
func onMeta(run func(ctx context.Context, cmd *cobra.Command, m *tableMeta, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		m, err := openMeta(ctx, cmd, args[0])
		if err != nil {
			return err
		}
		defer m.Close()
		return run(ctx, cmd, m, args)
	}
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
