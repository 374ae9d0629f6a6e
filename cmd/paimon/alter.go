package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

func newAlterCmd() *cobra.Command {
	var sets, unsets []string
	cmd := &cobra.Command{
		Use:   "alter URL --set k=v [--set k2=v2] [--unset k3]",
		Short: "Set or remove table options (publishes the next schema)",
		Long: `Set (--set key=value) and remove (--unset key) options of the table at URL,
and publish the result as the next schema file (Java's ALTER TABLE ... SET /
RESET, SchemaManager.commitChanges). The new options are checked as 'paimon
create' checks them, while the current ones are not, so alter can fix a
malformed option that makes the other commands refuse the table. On a table
with snapshots Java's rules apply: immutable options (merge-engine,
sequence.field, ...) cannot change, nor can bucket from or to -1. Prints the
new schema id and the changes.`,
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			changes, summary, err := optionChanges(sets, unsets)
			if err != nil {
				return err
			}
			ts, err := alterTable(cmd.Context(), args[0], changes)
			if errors.Is(err, catalog.ErrTableNotExist) {
				return notExist(args[0], "", err)
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "published schema %d (%s)\n", ts.ID, summary)
			return err
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "option to set, as key=value (repeatable)")
	cmd.Flags().StringArrayVar(&unsets, "unset", nil, "option to remove (repeatable)")
	return cmd
}

// optionChanges turns the --set and --unset flags into schema changes,
// sets first, and a summary ("set k=v; unset k2"). No change, a --set
// without '=', and a key given twice are usage errors.
func optionChanges(sets, unsets []string) ([]catalog.SchemaChange, string, error) {
	if len(sets) == 0 && len(unsets) == 0 {
		return nil, "", usageError{errors.New("nothing to change: give --set key=value or --unset key")}
	}
	var (
		changes []catalog.SchemaChange
		summary []string
		seen    = map[string]bool{}
	)
	use := func(key string) error {
		if key == "" {
			return usageError{errors.New("empty option key")}
		}
		if seen[key] {
			return usageError{fmt.Errorf("option %q is given twice", key)}
		}
		seen[key] = true
		return nil
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok {
			return nil, "", usageError{fmt.Errorf("--set %q: want key=value", kv)}
		}
		if err := use(k); err != nil {
			return nil, "", err
		}
		changes = append(changes, catalog.SetOption{Key: k, Value: v})
		summary = append(summary, "set "+k+"="+v)
	}
	for _, k := range unsets {
		k = strings.TrimSpace(k)
		if err := use(k); err != nil {
			return nil, "", err
		}
		changes = append(changes, catalog.RemoveOption{Key: k})
		summary = append(summary, "unset "+k)
	}
	return changes, strings.Join(summary, "; "), nil
}

// alterTable applies changes to the table at tableURL and returns the
// schema it published. A table in a warehouse (<warehouse>/<db>.db/<table>)
// is altered through its filesystem catalog (catalog.AlterTable); any other
// URL the same way by hand: catalog.ApplyChanges on the latest schema,
// published only if absent, redone on the new latest schema when a
// concurrent change took the id. Neither validates the current options,
// only the resulting ones.
func alterTable(ctx context.Context, tableURL string, changes []catalog.SchemaChange) (*schema.TableSchema, error) {
	if wh, id, ok := warehouseOf(tableURL); ok {
		c, err := catalog.Open(ctx, wh)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return c.AlterTable(ctx, id, changes...)
	}
	fio, err := fileio.Open(ctx, tableURL)
	if err != nil {
		return nil, err
	}
	defer fio.Close()
	sm := schema.NewManager(fio, "")
	_, err = snapshot.NewManager(fio).LatestID(ctx)
	hasSnapshots := err == nil
	if err != nil && !errors.Is(err, snapshot.ErrNotFound) {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		old, err := sm.Latest(ctx)
		if errors.Is(err, fileio.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", catalog.ErrTableNotExist, fileio.Redact(tableURL))
		}
		if err != nil {
			return nil, err
		}
		ns, err := catalog.ApplyChanges(old, hasSnapshots, time.Now().UnixMilli(), changes...)
		if err != nil {
			return nil, err
		}
		err = sm.Commit(ctx, ns)
		if errors.Is(err, fileio.ErrExist) {
			continue // lost the race for the next schema id
		}
		if err != nil {
			return nil, err
		}
		return ns, nil
	}
}
