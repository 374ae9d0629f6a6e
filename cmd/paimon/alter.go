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
	"github.com/paimon-go/paimon/types"
)

func newAlterCmd() *cobra.Command {
	var sets, unsets, retypes []string
	cmd := &cobra.Command{
		Use:   "alter URL [--set k=v] [--unset k2] [--type column=TYPE]",
		Short: "Set or remove table options, change column types (publishes the next schema)",
		Long: `Set (--set key=value) and remove (--unset key) options of the table at URL,
and publish the result as the next schema file (Java's ALTER TABLE ... SET /
RESET, SchemaManager.commitChanges). The new options are checked as 'paimon
create' checks them, while the current ones are not, so alter can fix a
malformed option that makes the other commands refuse the table. On a table
with snapshots Java's rules apply: immutable options (merge-engine,
sequence.field, ...) cannot change, nor can bucket from or to -1.

--type column=TYPE changes a top-level column's type (ALTER TABLE ... ALTER
COLUMN ... TYPE, SchemaChange.updateColumnType) to a SQL type such as INT,
STRING, DECIMAL(10, 2) or TIMESTAMP(3). The column keeps its nullability
unless TYPE ends with NOT NULL (which needs
'alter-column-null-to-not-null.disabled' = 'false'). Every change Java
accepts is accepted, lossy ones too (BIGINT to INT wraps, STRING to INT
parses, DOUBLE to FLOAT rounds: old files are read with Java's casts) unless
the table sets 'disable-explicit-type-casting' = 'true'; partition and
primary key columns cannot change type. Prints the new schema id and the
changes.`,
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			changes, summary, err := optionChanges(sets, unsets, retypes)
			if err != nil {
				return err
			}
			if len(unsets) > 0 {
				if err := checkUnsets(cmd.Context(), args[0], unsets); err != nil {
					return err
				}
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
	cmd.Flags().StringArrayVar(&retypes, "type", nil, "column type change, as column=SQL type (repeatable)")
	return cmd
}

// checkUnsets refuses --unset of an option the table's latest schema does
// not set: nothing would change, and no schema is published for it.
func checkUnsets(ctx context.Context, tableURL string, unsets []string) error {
	var opts map[string]string
	if wh, id, ok := warehouseOf(tableURL); ok {
		c, err := catalog.Open(ctx, wh)
		if err != nil {
			return err
		}
		defer c.Close()
		t, err := c.GetTable(ctx, id)
		if errors.Is(err, catalog.ErrTableNotExist) {
			return notExist(tableURL, "", err)
		}
		if err != nil {
			return err
		}
		opts = t.Schema.Options
	} else {
		fio, err := fileio.Open(ctx, tableURL)
		if err != nil {
			return err
		}
		defer fio.Close()
		ts, err := schema.NewManager(fio, "").Latest(ctx)
		if errors.Is(err, fileio.ErrNotExist) {
			return notExist(tableURL, "", fmt.Errorf("%w: %s", catalog.ErrTableNotExist, fileio.Redact(tableURL)))
		}
		if err != nil {
			return err
		}
		opts = ts.Options
	}
	for _, k := range unsets {
		if _, ok := opts[strings.TrimSpace(k)]; !ok {
			return cliError{fmt.Sprintf("--unset %s: the table does not set option %q; nothing published", k, strings.TrimSpace(k)), nil}
		}
	}
	return nil
}

// optionChanges turns the --set, --unset and --type flags into schema
// changes, in that order, and a summary ("set k=v; unset k2; type c=INT").
// No change, a --set or --type without '=', a key or column given twice and
// a type that does not parse are usage errors.
func optionChanges(sets, unsets, retypes []string) ([]catalog.SchemaChange, string, error) {
	if len(sets) == 0 && len(unsets) == 0 && len(retypes) == 0 {
		return nil, "", usageError{errors.New("nothing to change: give --set key=value, --unset key or --type column=TYPE")}
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
	columns := map[string]bool{}
	for _, ct := range retypes {
		col, sqlType, ok := strings.Cut(ct, "=")
		col = strings.TrimSpace(col)
		if !ok || col == "" {
			return nil, "", usageError{fmt.Errorf("--type %q: want column=TYPE", ct)}
		}
		if columns[col] {
			return nil, "", usageError{fmt.Errorf("column %q is given twice", col)}
		}
		columns[col] = true
		t, err := types.ParseSQL(sqlType)
		if err != nil {
			return nil, "", usageError{fmt.Errorf("--type %q: %w", ct, err)}
		}
		changes = append(changes, catalog.UpdateColumnType{Name: col, Type: t, KeepNullability: t.Nullable})
		summary = append(summary, "type "+col+"="+t.String())
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
