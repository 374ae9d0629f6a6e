package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
)

// newLookupCmd is `paimon lookup URL --key col=value[,col=value…]…`.
func newLookupCmd() *cobra.Command {
	var (
		sf         scanFlags
		rt         bool
		keys       []string
		formatName string
		f          rowfmt.Format
	)
	cmd := &cobra.Command{
		Use:   "lookup URL --key COL=VALUE[,COL=VALUE...] [--key ...]",
		Short: "Print the current rows of primary keys (nothing for a missing key)",
		Long: `Print the current row of each primary key given with --key, merged by the table's
merge engine (deletion vectors honoured), one row per key found; a missing key prints
nothing and is not an error. Each --key names every primary key column, e.g.
--key id=7,dt=2024-01-01. Values are written as in "paimon import" JSON Lines, without
quotes.`,
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, args []string) error {
			var err error
			if f, err = rowfmt.ParseFormat(formatName); err != nil {
				return usageError{err}
			}
			if len(keys) == 0 {
				return usageError{fmt.Errorf("give at least one --key")}
			}
			return sf.check(cmd, args)
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			opts, err := sf.open(ctx, t)
			if err != nil {
				return err
			}
			kb, err := keyBatch(t.Schema(), keys)
			if err != nil {
				return usageError{err}
			}
			defer kb.Release()
			var rec arrow.RecordBatch
			if rt {
				if len(opts) > 0 {
					return usageError{errors.New("--realtime looks up the server's current rows: it takes no --snapshot, --tag, --where, --columns or --bucket")}
				}
				c, svc, err := serve.DialTable(ctx, t, os.Getenv(tokenEnv))
				if err != nil {
					return err
				}
				defer c.Close()
				rec, err = c.Lookup(ctx, kb)
				if err != nil {
					return serverError(unreachable(err, t, svc))
				}
			} else if rec, err = t.Lookup(ctx, kb, opts...); err != nil {
				return err
			}
			defer rec.Release()
			if rec.NumRows() == 0 {
				return nil
			}
			w, err := rowfmt.NewWriter(cmd.OutOrStdout(), f, &rowfmt.Options{Fields: fieldsOf(t.Schema(), rec.Schema().Fields())})
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
			return w.Close()
		}),
	}
	sf.register(cmd, true)
	cmd.Flags().StringArrayVar(&keys, "key", nil, "a primary key as COL=VALUE[,COL=VALUE...] naming every primary key column (repeatable)")
	cmd.Flags().StringVar(&formatName, "format", "jsonl", "output format: jsonl, csv or table")
	cmd.Flags().BoolVar(&rt, "realtime", false, "look up through the table's paimon serve server (memory and files; token from $"+tokenEnv+")")
	return cmd
}

// fieldsOf returns the table fields named by the output columns.
func fieldsOf(ts *schema.TableSchema, cols []arrow.Field) []types.DataField {
	out := make([]types.DataField, 0, len(cols))
	for _, c := range cols {
		if _, f, ok := types.FieldByName(ts.Fields, c.Name); ok {
			out = append(out, f)
		}
	}
	return out
}

// keyBatch builds the batch of primary keys of the --key flags: each
// names every primary key column once, with a value parsed as the JSON
// Lines import parses it (strings, dates and timestamps unquoted).
func keyBatch(ts *schema.TableSchema, keys []string) (arrow.RecordBatch, error) {
	if len(ts.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("the table has no primary key")
	}
	fields := make([]types.DataField, len(ts.PrimaryKeys))
	for i, name := range ts.PrimaryKeys {
		_, f, ok := types.FieldByName(ts.Fields, name)
		if !ok {
			return nil, fmt.Errorf("primary key column %q is not a field", name)
		}
		fields[i] = f
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(fields))
	defer b.Release()
	for _, k := range keys {
		given := map[string]string{}
		for _, part := range strings.Split(k, ",") {
			col, val, ok := strings.Cut(part, "=")
			col = strings.TrimSpace(col)
			if !ok || col == "" {
				return nil, fmt.Errorf("--key %q: want COL=VALUE[,COL=VALUE...]", k)
			}
			if _, dup := given[col]; dup {
				return nil, fmt.Errorf("--key %q: column %q given twice", k, col)
			}
			given[col] = val
		}
		for i, f := range fields {
			val, ok := given[f.Name]
			if !ok {
				return nil, fmt.Errorf("--key %q: primary key column %q missing (the primary key is %s)", k, f.Name, strings.Join(ts.PrimaryKeys, ", "))
			}
			delete(given, f.Name)
			raw := json.RawMessage(val)
			switch f.Type.Kind {
			case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
				types.KindFloat, types.KindDouble, types.KindDecimal:
			default:
				q, _ := json.Marshal(val)
				raw = q
			}
			if err := appendValue(b.Field(i), f.Type, raw); err != nil {
				return nil, fmt.Errorf("--key %q: column %q: %w", k, f.Name, err)
			}
			if b.Field(i).NullN() > 0 {
				return nil, fmt.Errorf("--key %q: column %q: a primary key value cannot be null", k, f.Name)
			}
		}
		for col := range given {
			return nil, fmt.Errorf("--key %q: %q is not a primary key column (the primary key is %s)", k, col, strings.Join(ts.PrimaryKeys, ", "))
		}
	}
	return b.NewRecordBatch(), nil
}
