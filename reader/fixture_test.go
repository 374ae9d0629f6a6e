package reader_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/reader"
)

// caseOptions turns a fixture case into scan options. Partition filters
// become equality terms of the where expression.
func caseOptions(c fixture.Case) []reader.Option {
	var opts []reader.Option
	if c.Snapshot != nil {
		opts = append(opts, reader.WithSnapshot(*c.Snapshot))
	}
	if c.AllLevels {
		opts = append(opts, reader.WithAllLevels())
	}
	if len(c.Columns) > 0 {
		opts = append(opts, reader.WithColumns(c.Columns...))
	}
	var terms []string
	if c.Where != "" {
		terms = append(terms, "("+c.Where+")")
	}
	keys := make([]string, 0, len(c.Partition))
	for k := range c.Partition {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		terms = append(terms, fmt.Sprintf("%s = %s", k, c.Partition[k]))
	}
	if len(terms) > 0 {
		opts = append(opts, reader.WithWhere(strings.Join(terms, " AND ")))
	}
	if c.Bucket != nil {
		opts = append(opts, reader.WithBucket(int32(*c.Bucket)))
	}
	return opts
}

// TestFixtures reads every stated case of every Java-written fixture table
// through the library API and compares the rows with the hand-transcribed
// expectations of its EXPECTED.md.
func TestFixtures(t *testing.T) {
	ctx := context.Background()
	for _, tbl := range fixture.Tables(t) {
		for _, c := range tbl.Cases {
			t.Run(tbl.Name+"/"+c.Name, func(t *testing.T) {
				var topts []paimon.TableOption
				if c.Branch != "" {
					topts = append(topts, paimon.WithBranch(c.Branch))
				}
				table, err := paimon.OpenTable(ctx, fixture.Dir(t, tbl.Name), topts...)
				if err != nil {
					t.Fatalf("OpenTable: %v", err)
				}
				defer table.Close()
				plan, err := table.NewScan(caseOptions(c)...).Plan(ctx)
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				var recs []arrow.RecordBatch
				for rec, err := range plan.Records(ctx) {
					if err != nil {
						t.Fatalf("Records: %v", err)
					}
					recs = append(recs, rec)
				}
				defer func() {
					for _, r := range recs {
						r.Release()
					}
				}()
				fixture.AssertRecords(t, c, recs, plan.Fields)
			})
		}
	}
}
