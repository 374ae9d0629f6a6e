package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// tableFlags are the table definition flags of create and import --create.
type tableFlags struct {
	schemaFile string
	columns    []string
	primaryKey string
	partition  string
	bucket     string
	options    []string
	comment    string
}

func (f *tableFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.schemaFile, "schema", "", "JSON file with the table definition (Java Schema: fields, partitionKeys, primaryKeys, options, comment)")
	fl.StringArrayVar(&f.columns, "column", nil, "column as name:TYPE, e.g. id:BIGINT or price:DECIMAL(10, 2) (repeatable)")
	fl.StringVar(&f.primaryKey, "primary-key", "", "comma-separated primary key columns")
	fl.StringVar(&f.partition, "partition", "", "comma-separated partition columns")
	fl.StringVar(&f.bucket, "bucket", "", "number of buckets (option 'bucket'; -1 = unaware/dynamic); without --primary-key give --option bucket-key=COL too")
	fl.StringArrayVar(&f.options, "option", nil, "table option as key=value (repeatable)")
	fl.StringVar(&f.comment, "comment", "", "table comment")
}

// given reports whether any definition flag was set.
func (f *tableFlags) given() bool {
	return f.schemaFile != "" || len(f.columns) > 0 || f.primaryKey != "" || f.partition != "" ||
		f.bucket != "" || len(f.options) > 0 || f.comment != ""
}

// schemaFileJSON is the --schema document: Java's org.apache.paimon.schema.Schema
// JSON. A schema-N file (paimon schema output) also fits: its id, version,
// highestFieldId and timeMillis are ignored, field ids are reassigned.
type schemaFileJSON struct {
	Fields        json.RawMessage   `json:"fields"`
	PartitionKeys []string          `json:"partitionKeys"`
	PrimaryKeys   []string          `json:"primaryKeys"`
	Options       map[string]string `json:"options"`
	Comment       *string           `json:"comment"`
}

// definition builds the catalog.Schema from the flags. derived, when not
// nil, supplies the columns if neither --schema nor --column gives any (the
// columns of an imported file). Errors are usage errors.
func (f *tableFlags) definition(derived []types.DataField) (catalog.Schema, error) {
	var s catalog.Schema
	if f.schemaFile != "" {
		data, err := os.ReadFile(f.schemaFile)
		if err != nil {
			return s, usageError{fmt.Errorf("--schema: %w", err)}
		}
		var doc schemaFileJSON
		if err := json.Unmarshal(data, &doc); err != nil {
			return s, usageError{fmt.Errorf("--schema %s: %w", f.schemaFile, err)}
		}
		if len(doc.Fields) > 0 {
			row, err := types.ParseJSON([]byte(`{"type":"ROW","fields":` + string(doc.Fields) + `}`))
			if err != nil {
				return s, usageError{fmt.Errorf("--schema %s: fields: %w", f.schemaFile, err)}
			}
			s.Fields = row.Fields
		}
		s.PartitionKeys, s.PrimaryKeys, s.Options = doc.PartitionKeys, doc.PrimaryKeys, doc.Options
		if doc.Comment != nil {
			s.Comment = *doc.Comment
		}
	}
	for _, c := range f.columns {
		name, typ, ok := strings.Cut(c, ":")
		name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
		if !ok || name == "" || typ == "" {
			return s, usageError{fmt.Errorf("--column %q: want name:TYPE", c)}
		}
		t, err := types.ParseSQL(typ)
		if err != nil {
			return s, usageError{fmt.Errorf("--column %q: %w", c, err)}
		}
		s.Fields = append(s.Fields, types.DataField{Name: name, Type: t})
	}
	if len(s.Fields) == 0 {
		if derived == nil {
			return s, usageError{errors.New("no columns: give --schema or --column")}
		}
		s.Fields = derived
	}
	if f.primaryKey != "" {
		s.PrimaryKeys = splitList(f.primaryKey)
	}
	if f.partition != "" {
		s.PartitionKeys = splitList(f.partition)
	}
	if len(f.options) > 0 || f.bucket != "" {
		opts := map[string]string{}
		for k, v := range s.Options {
			opts[k] = v
		}
		for _, o := range f.options {
			k, v, ok := strings.Cut(o, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return s, usageError{fmt.Errorf("--option %q: want key=value", o)}
			}
			opts[strings.TrimSpace(k)] = v
		}
		if f.bucket != "" {
			if _, err := strconv.ParseInt(f.bucket, 10, 32); err != nil {
				return s, usageError{fmt.Errorf("--bucket %q: not an integer", f.bucket)}
			}
			opts[schema.KeyBucket] = f.bucket
		}
		s.Options = opts
	}
	if f.comment != "" {
		s.Comment = f.comment
	}
	return s, checkBucketKey(s)
}

// checkBucketKey reports, as a usage error wrapping catalog.ErrInvalidSchema,
// a fixed bucket count without a primary key or a bucket key, which
// catalog.CreateTable refuses (Java SchemaValidation.validateBucket: "You
// should define a 'bucket-key' for bucketed append mode"), saying which
// option to add. Malformed bucket values are left to the catalog.
func checkBucketKey(s catalog.Schema) error {
	n, err := strconv.Atoi(strings.TrimSpace(s.Options[schema.KeyBucket]))
	if err != nil || n <= 0 || len(s.PrimaryKeys) > 0 || s.Options[catalog.KeyPrimaryKey] != "" || s.Options[schema.KeyBucketKey] != "" {
		return nil
	}
	return usageError{cliError{fmt.Sprintf("a table without a primary key needs a bucket key for bucket = %d: add --option bucket-key=COL[,COL2] "+
		"(the columns whose hash picks a row's bucket), or give --primary-key", n), catalog.ErrInvalidSchema}}
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// warehouseOf splits a table URL of the form <warehouse>/<db>.db/<table>
// into the warehouse URL (query kept) and the identifier; ok is false when
// the table's parent folder does not end in ".db".
func warehouseOf(tableURL string) (wh string, id catalog.Identifier, ok bool) {
	split := func(p string) (string, string, string, bool) {
		p = strings.TrimSuffix(p, "/")
		dbDir, table := path.Split(p)
		dbDir = strings.TrimSuffix(dbDir, "/")
		root, db := path.Split(dbDir)
		name, isDB := strings.CutSuffix(db, catalog.DBSuffix)
		if !isDB || name == "" || table == "" {
			return "", "", "", false
		}
		return root, name, table, true
	}
	if !strings.Contains(tableURL, "://") && !strings.HasPrefix(tableURL, "file:") {
		abs, err := filepath.Abs(tableURL)
		if err != nil {
			return "", id, false
		}
		root, db, table, ok := split(filepath.ToSlash(abs))
		if !ok {
			return "", id, false
		}
		if root != "/" {
			root = strings.TrimSuffix(root, "/")
		}
		return filepath.FromSlash(root), catalog.NewIdentifier(db, table), true
	}
	u, err := url.Parse(tableURL)
	if err != nil {
		return "", id, false
	}
	root, db, table, ok := split(u.Path)
	if !ok {
		return "", id, false
	}
	u.Path, u.RawPath = strings.TrimSuffix(root, "/"), ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), catalog.NewIdentifier(db, table), true
}

// createTable creates the table at tableURL from s and returns its schema.
//
// When the URL lies in a warehouse (<warehouse>/<db>.db/<table>) the table
// is created through the filesystem catalog of that warehouse: the
// database is created if missing (with its marker file), then the table,
// exactly as catalog.CreateTable does. Any other URL gets schema-0 written
// directly at the table root, with the same schema rules
// (catalog.NewTableSchema) and the same create-if-absent publication, so a
// racing creator loses with catalog.ErrTableExist; such a table is readable
// by path (Java FileStoreTableFactory, pypaimon) but belongs to no catalog.
func createTable(ctx context.Context, tableURL string, s catalog.Schema) (*schema.TableSchema, error) {
	if wh, id, ok := warehouseOf(tableURL); ok {
		c, err := catalog.Open(ctx, wh)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		if err := c.CreateDatabase(ctx, id.Database, true); err != nil {
			return nil, err
		}
		if err := c.CreateTable(ctx, id, s, false); err != nil {
			return nil, err
		}
		t, err := c.GetTable(ctx, id)
		if err != nil {
			return nil, err
		}
		return t.Schema, nil
	}
	fio, err := fileio.Open(ctx, tableURL)
	if err != nil {
		return nil, err
	}
	defer fio.Close()
	sm := schema.NewManager(fio, "")
	ids, err := sm.List(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		return nil, fmt.Errorf("%w: %s", catalog.ErrTableExist, fileio.Redact(tableURL))
	}
	ts, err := catalog.NewTableSchema(s, time.Now().UnixMilli())
	if err != nil {
		return nil, err
	}
	if err := sm.Commit(ctx, ts); err != nil {
		if errors.Is(err, fileio.ErrExist) {
			return nil, fmt.Errorf("%w: %s: %w", catalog.ErrTableExist, fileio.Redact(tableURL), err)
		}
		return nil, err
	}
	return ts, nil
}

func newCreateCmd() *cobra.Command {
	var tf tableFlags
	cmd := &cobra.Command{
		Use:   "create URL",
		Short: "Create a table (schema-0) at URL",
		Long: `Create a table at URL from --schema FILE.json and/or --column flags.

If URL is <warehouse>/<db>.db/<table>, the table is created in that
warehouse's filesystem catalog (the database is created when missing).
Otherwise schema/schema-0 is written directly below URL. Either way the
schema follows Java's rules (primary key columns NOT NULL, field ids from 0)
and is published only if absent. Prints the new schema as JSON.`,
		Args: exactlyOneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := tf.definition(nil)
			if err != nil {
				return err
			}
			ts, err := createTable(cmd.Context(), args[0], s)
			if err != nil {
				return err
			}
			data, err := ts.Encode()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(data))
			return err
		},
	}
	tf.register(cmd)
	return cmd
}
