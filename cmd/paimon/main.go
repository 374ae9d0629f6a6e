// Command paimon inspects and reads Apache Paimon tables on any store that
// package fileio opens (local paths, file://, mem://, s3://, gs://).
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
//
// Durations (D) are written as Paimon writes them (1d, 2 h, 30min) or as Go
// does (1h30m, 1.5h).
//
// Exit status 0 on success; 1 with one line on stderr for a missing table, a
// corrupt file or an unsupported feature; 2 for bad usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := newRoot(os.Stdout).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, oneLine(err))
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
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
	}
	root.SetOut(out)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newSnapshotsCmd(), newSchemaCmd(), newFilesCmd(), newCatCmd(), newCreateCmd(), newImportCmd(), newExpireCmd(), newCleanOrphansCmd(), newTagCmd(), newRollbackCmd(), newCompactCmd(), newAlterCmd())
	return root
}

// exactlyOneURL is the positional-argument check of every subcommand.
func exactlyOneURL(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{fmt.Errorf("expected exactly one table URL, got %d arguments", len(args))}
	}
	return nil
}
