// Command paimon inspects and reads Apache Paimon tables on any store that
// package fileio opens (local paths, file://, s3://, gs://, azblob://).
//
//	paimon snapshots [--branch B] URL
//	paimon schema [--id N] [--branch B] URL
//	paimon files [--snapshot N] [--tag T] [--branch B] [--bucket N] [--where EXPR] URL
//	paimon cat [--snapshot N] [--tag T] [--branch B] [--all-levels] [--bucket N]
//	           [--format jsonl|csv|table] [--where EXPR] [--columns a,b] URL
//	paimon create [--schema FILE.json] [--column name:TYPE ...] [--primary-key a,b]
//	              [--partition c] [--bucket N] [--option k=v ...] [--comment C] URL
//	paimon import [--create [create flags]] [--format parquet|jsonl] [--batch-rows N]
//	              [--commit-every N] [--limit N] URL FILE
//	paimon compact [--full] [--partition k=v[,k2=v2]]... [--parallelism N] URL
//	paimon compact --manifests URL
//	paimon alter URL --set k=v [--set k2=v2] [--unset k3]
//	paimon expire [--retain-min N] [--retain-max N] [--max-deletes N] [--older-than D] [--dry-run] [--branch B] URL
//	paimon clean-orphans [--older-than D] [--dry-run] URL
//	paimon tag create [--snapshot N] [--time-retained D] URL NAME | tag delete URL NAME | tag list URL
//	paimon rollback (--to N | --tag NAME) [--delete-files] URL
//	paimon tail [--from latest|full|earliest|snapshot:N|timestamp:T] [--consumer ID]
//	           [--format jsonl] [--where EXPR] [--columns a,b] [--interval D] [--branch B] URL
//
// Durations (D) are written as Paimon writes them (1d, 2 h, 30min) or as Go
// does (1h30m, 1.5h).
//
// Exit status 0 on success; 1 with one line on stderr for a missing table, a
// corrupt file or an unsupported feature; 2 for bad usage.
//
// SIGINT and SIGTERM stop a command the same way: it stops reading and
// writing, deletes its temporary files and the data files of rows not yet
// committing (a commit cut short may leave unreferenced files for
// 'paimon clean-orphans'), publishes no further snapshot, and exits with
// status 128 + the signal number (130 for SIGINT, 143 for SIGTERM) after one
// line on stderr, "interrupted by SIGTERM: ...", that says what was committed
// (import: the rows, commits and snapshots). A command that finished before
// it noticed the signal exits as usual. A second signal kills the process at
// once, leaving its temporary files for 'paimon clean-orphans'. Credentials
// in a URL (userinfo passwords, secret or token parameters) are never
// printed: messages show the URL with them masked (fileio.Redact).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := interruptible(context.Background())
	err := newRoot(os.Stdout).ExecuteContext(ctx)
	stop()
	os.Exit(report(os.Stderr, ctx, err))
}

// interrupted is the cause of the CLI's context when a signal stopped it.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + signalName(i.sig) }

// Is makes an interrupted match context.Canceled.
func (i interrupted) Is(target error) bool { return target == context.Canceled }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// interruptible returns a context canceled, with an interrupted cause, by
// the first SIGINT or SIGTERM; after that signal the default actions are
// restored, so that a second one kills the process. stop releases the
// signals.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			sig, _ := s.(syscall.Signal)
			cancel(interrupted{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// report prints err (nil: nothing) as one line on w and returns the exit
// status: 0 without error; 128 + the signal number when a signal
// interrupted the command (the line starts "interrupted by SIG...: ");
// 2 for bad usage; 1 otherwise.
func report(w io.Writer, ctx context.Context, err error) int {
	if err == nil {
		return 0
	}
	var sig interrupted
	if errors.As(context.Cause(ctx), &sig) {
		fmt.Fprintf(w, "%s: %s\n", sig, oneLine(err))
		return 128 + int(sig.sig)
	}
	fmt.Fprintln(w, oneLine(err))
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// usageError marks bad command-line usage (exit status 2).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

func newRoot(out io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "paimon",
		Short:         "Inspect, read, create and load Apache Paimon tables",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Each command runs in its own process, so a mem:// table would
		// vanish when the command exits: refuse it (the library keeps it).
		PersistentPreRunE: func(_ *cobra.Command, args []string) error {
			for _, a := range args {
				if strings.HasPrefix(strings.ToLower(a), "mem://") {
					return usageError{fmt.Errorf("%s: mem:// tables live inside one process and vanish when a command exits; use a local path or an object store", a)}
				}
			}
			return nil
		},
	}
	root.SetOut(out)
	root.PersistentFlags().Bool("metrics", false, "print a JSON line of metrics (package metrics) on stderr for every commit, scan plan, compaction and expiration; durations in nanoseconds")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newSnapshotsCmd(), newSchemaCmd(), newFilesCmd(), newCatCmd(), newCreateCmd(), newImportCmd(), newExpireCmd(), newCleanOrphansCmd(), newTagCmd(), newRollbackCmd(), newCompactCmd(), newAlterCmd(), newTailCmd(), newLookupCmd(), newServeCmd())
	return root
}

// exactlyOneURL is the positional-argument check of every subcommand.
func exactlyOneURL(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{fmt.Errorf("expected exactly one table URL, got %d arguments", len(args))}
	}
	return nil
}
