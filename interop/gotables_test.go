//go:build interop

package interop

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// goRow is one input row of a Go-written table: its row kind (row.RowKind*)
// and one Go value per table column (the convention of package types).
type goRow struct {
	kind   byte
	values []any
}

func ins(v ...any) goRow              { return goRow{kind: row.RowKindInsert, values: v} }
func withKind(k byte, v ...any) goRow { return goRow{kind: k, values: v} }

// goTable is a table our writer and commit create: schema, options, the merge
// engine that gives its final rows, and the rows of each commit.
type goTable struct {
	name          string
	fields        []types.DataField
	partitionKeys []string
	primaryKeys   []string
	options       map[string]string
	engine        string // append, deduplicate, partial-update, aggregation
	commits       [][]goRow
	// mode is how the rows reach the table: "" through writer and commit,
	// "realtime" through a real-time context (each commit one
	// PrepareCommitWithProgress and CommitWithProgress), "compact" through
	// writer and commit followed by a full compaction, "manifests" through
	// writer and commit with a full compaction before the last commit and an
	// on-demand manifest compaction (commit.CompactManifests) after it,
	// "concurrent" by one writer per commit, all restored from the empty
	// table before the first commits (their files start at the same
	// sequence numbers and the committer re-sequences them; issue 11 part 2),
	// committed in order; the peers merge the re-sequenced level-0 files;
	// "cleaned" is "concurrent" followed by a full compaction, an expiration
	// of every snapshot but the latest and orphan cleaning,
	// "expire" through writer and paimon.Table.NewCommit, whose automatic
	// maintenance expires snapshots (and partitions) after every commit,
	// with a full compaction before the last commit of a primary-key table
	// so that the expiration deletes data files too,
	// "compact-each" through writer and commit with a compaction
	// (compaction.Compact) after every commit (postpone tables: each
	// commit's bucket-postpone rows routed onto the earlier ones).
	mode string
	// keep, when set, selects the final rows that survive (partition
	// expiration drops the others).
	keep func(values []any) bool
	// earliest, when set, is the EARLIEST snapshot the writes must leave
	// (automatic expiration happened).
	earliest int64
	// retype, when set, holds the types (by column name) the table is
	// created with: the first commit is written in them (its rows, given in
	// the final types of fields, are converted by narrowValue), then ALTER
	// TABLE changes each column to its type in fields before the other
	// commits (gotables_casts_test.go).
	retype map[string]types.DataType
	// want, when set, are the final rows (for aggregate functions the
	// model in finalRows does not compute).
	want [][]any
	// peerDeviates names peers whose collections (ARRAY, MAP, MULTISET
	// values) are known to hold Java's elements in another order, with the
	// reason; their cells compare every array's elements unordered.
	peerDeviates map[string]string
	// peerRefuses names peers that refuse to read the table by design, with
	// text their error must contain; their cell passes only if they refuse.
	peerRefuses map[string]string
	// peerKnown names peers known to read some values of the table
	// differently from Java (a limitation of the peer), with the reason:
	// their cell runs and is KNOWN, with its differences logged, when it
	// differs, PASS when it agrees.
	peerKnown map[string]string
}

func notNull(t types.DataType) types.DataType { t.Nullable = false; return t }

func field(name string, t types.DataType) types.DataField { return types.Field(0, name, t) }

func dec(s string, p, scale int) types.Decimal {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	frac += strings.Repeat("0", scale-len(frac))
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		panic("bad decimal literal " + s) // test data literal, fixed at compile time
	}
	if neg {
		u.Neg(u)
	}
	return types.Decimal{Unscaled: u, Precision: p, Scale: scale}
}

func ts(s string) types.Timestamp {
	t, err := time.Parse("2006-01-02T15:04:05.999999999", s)
	if err != nil {
		panic(err) // test data literal
	}
	return types.Timestamp{Millis: t.UnixMilli(), NanoOfMilli: int32(t.Nanosecond() % 1_000_000)}
}

func date(s string) int32 {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err) // test data literal
	}
	return int32(math.Floor(float64(t.Unix()) / 86400))
}

// goTables is the set of tables the forward cells write with our writer.
func goTables() []goTable {
	typeFields := []types.DataField{
		field("id", notNull(types.Int())),
		field("b", types.Boolean()),
		field("ti", types.TinyInt()),
		field("si", types.SmallInt()),
		field("bi", types.BigInt()),
		field("f", types.Float()),
		field("d", types.Double()),
		field("dec", types.DecimalOf(10, 2)),
		field("dec38", types.DecimalOf(38, 9)),
		field("c", types.CharOf(5)),
		field("vc", types.VarCharOf(10)),
		field("s", types.String()),
		field("bin", types.BinaryOf(3)),
		field("vb", types.Bytes()),
		field("dt", types.Date()),
		field("tm", types.TimeOf(3)),
		field("ts0", types.TimestampOf(0)),
		field("ts3", types.TimestampOf(3)),
		field("ts6", types.TimestampOf(6)),
		field("ts9", types.TimestampOf(9)),
		field("ltz3", types.LocalZonedTimestampOf(3)),
		field("ltz6", types.LocalZonedTimestampOf(6)),
		field("arr", types.ArrayOf(types.Int())),
		field("m", types.MapOf(notNull(types.String()), types.Int())),
		field("r", types.RowOf(field("x", types.Int()), field("y", types.String()))),
	}
	nulls := make([]any, len(typeFields))
	nulls[0] = int32(3)
	types1 := []goRow{
		ins(int32(1), true, int8(-128), int16(-32768), int64(math.MinInt64), float32(3.1), 0.1,
			dec("12345678.90", 10, 2), dec("12345678901234567890123456789.123456789", 38, 9),
			"ab   ", "héllo ✓", "<a&b> \"q\" \\", []byte("a31"), []byte{0, 1, 255},
			date("2024-02-29"), int32(3_723_004),
			ts("2024-01-02T03:04:05"), ts("2024-01-02T03:04:05.678"), ts("2024-01-02T03:04:05.678901"),
			ts("2024-01-02T03:04:05.678901234"), ts("2024-01-02T03:04:05.123"), ts("2024-01-02T03:04:05.000006"),
			[]any{int32(1), nil, int32(3)}, types.Map{Keys: []any{"k1", "k2"}, Values: []any{int32(1), nil}},
			[]any{int32(7), "seven"}),
		ins(int32(2), false, int8(127), int16(32767), int64(math.MaxInt64), float32(-0.5), 1e-7,
			dec("-0.12", 10, 2), dec("0.000000001", 38, 9),
			"x    ", "", "line\nbreak", []byte{0, 0, 0}, []byte{},
			date("1969-12-31"), int32(0),
			ts("1969-12-31T23:59:59"), ts("1969-12-31T23:59:59.999"), ts("1970-01-01T00:00:00.000001"),
			ts("1969-12-31T23:59:59.999999999"), ts("1999-12-31T23:59:59.999"), ts("1999-12-31T23:59:59.999999"),
			[]any{}, types.Map{}, []any{nil, nil}),
	}
	types2 := []goRow{
		{kind: row.RowKindInsert, values: nulls},
		ins(int32(4), true, int8(0), int16(0), int64(0), float32(math.Inf(1)), math.NaN(),
			dec("7.00", 10, 2), dec("-99999999999999999999999999999.999999999", 38, 9),
			"     ", "0123456789", "✓✓", []byte{1, 2, 3}, []byte("x"),
			date("0001-01-01"), int32(86_399_999),
			ts("2038-01-19T03:14:08"), ts("2000-02-29T12:00:00.001"), ts("9999-12-31T23:59:59.999999"),
			ts("1970-01-01T00:00:00.000001"), ts("1970-01-01T00:00:00"), ts("1970-01-01T00:00:00"),
			[]any{nil}, types.Map{Keys: []any{"z"}, Values: []any{int32(0)}}, []any{int32(-1), ""}),
	}

	partFields := []types.DataField{field("dt", types.String()), field("id", types.Int()), field("v", types.String())}
	var part1, part2 []goRow
	for i := 1; i <= 5; i++ {
		part1 = append(part1, ins("2024-01-01", int32(i), fmt.Sprintf("a%d", i)))
	}
	for i := 6; i <= 8; i++ {
		part1 = append(part1, ins("2024-01-02", int32(i), fmt.Sprintf("b%d", i)))
	}
	part2 = append(part2, ins("2024-01-02", int32(9), "c9"), ins("2024-01-03", int32(12), "d12"))

	bucketFields := []types.DataField{field("p", types.Int()), field("id", types.Int()), field("v", types.String())}
	var b1, b2 []goRow
	for i := 0; i < 20; i++ {
		b1 = append(b1, ins(int32(i%2), int32(i), fmt.Sprintf("v%d", i)))
	}
	for i := 20; i < 30; i++ {
		b2 = append(b2, ins(int32(i%3), int32(i), fmt.Sprintf("w%d", i)))
	}

	pkFields := []types.DataField{
		field("region", types.String()), field("id", types.Int()), field("name", types.String()),
		field("amount", types.DecimalOf(12, 3)), field("ts", types.TimestampOf(6)),
	}
	pk := func(k byte, region string, id int, name string) goRow {
		return withKind(k, region, int32(id), name,
			dec(fmt.Sprintf("%d.%03d", id*3/2, (id*3%2)*500), 12, 3),
			ts(fmt.Sprintf("2024-05-01T00:00:%02d.%06d", id%60, id)))
	}
	// Cross-partition upserts of id across regions (xpIns: without the
	// deletes, for first-row).
	xp1 := []goRow{pk(row.RowKindInsert, "eu", 1, "a1"), pk(row.RowKindInsert, "eu", 2, "a2"), pk(row.RowKindInsert, "eu", 3, "a3"),
		pk(row.RowKindInsert, "us", 4, "a4"), pk(row.RowKindInsert, "us", 1, "b1")}
	xp2 := []goRow{pk(row.RowKindInsert, "us", 2, "b2"), pk(row.RowKindInsert, "eu", 3, "b3"), pk(row.RowKindInsert, "ap", 5, "b5"),
		pk(row.RowKindDelete, "us", 4, "a4")}
	xp3 := []goRow{pk(row.RowKindInsert, "ap", 2, "c2"), pk(row.RowKindInsert, "eu", 4, "c4"), pk(row.RowKindInsert, "eu", 6, "c6"),
		pk(row.RowKindInsert, "eu", 7, "c7"), pk(row.RowKindInsert, "us", 7, "d7"), pk(row.RowKindInsert, "ap", 7, "e7")}
	xpIns := func(rows []goRow) []goRow {
		var out []goRow
		for _, r := range rows {
			if r.kind == row.RowKindInsert {
				out = append(out, r)
			}
		}
		return out
	}
	var pk1, pk2, pk4 []goRow
	for _, r := range []string{"eu", "us"} {
		for i := 1; i <= 12; i++ {
			pk1 = append(pk1, pk(row.RowKindInsert, r, i, fmt.Sprintf("%s-%d", r, i)))
		}
	}
	for i := 1; i <= 4; i++ {
		pk2 = append(pk2, pk(row.RowKindUpdateBefore, "eu", i, fmt.Sprintf("eu-%d", i)),
			pk(row.RowKindUpdateAfter, "eu", i, fmt.Sprintf("eu-%d-v2", i)))
	}
	for i := 1; i <= 3; i++ {
		pk2 = append(pk2, pk(row.RowKindDelete, "us", i, fmt.Sprintf("us-%d", i)))
	}
	pk2 = append(pk2, pk(row.RowKindInsert, "eu", 13, "eu-13"), pk(row.RowKindUpdateAfter, "eu", 1, "eu-1-v3"))
	pk3 := []goRow{
		pk(row.RowKindDelete, "eu", 13, "eu-13"), pk(row.RowKindInsert, "us", 2, "us-2-back"),
		pk(row.RowKindDelete, "eu", 99, "ghost"),
	}
	for i := 5; i <= 8; i++ {
		pk4 = append(pk4, pk(row.RowKindUpdateAfter, "us", i, fmt.Sprintf("us-%d-v2", i)))
	}

	var agg1 []goRow
	for i := 1; i <= 5; i++ {
		agg1 = append(agg1, ins(int32(i), int64(i*10), int32(i), fmt.Sprintf("t%d", i)))
	}

	// Avro holds timestamps up to precision 6 (Java AvroSchemaConverter):
	// the Avro types table drops ts9.
	avroFields, avroTypes1, avroTypes2 := dropColumn(typeFields, types1, "ts9"), []goRow(nil), []goRow(nil)
	for _, r := range types1 {
		avroTypes1 = append(avroTypes1, dropValue(r, 19))
	}
	for _, r := range types2 {
		avroTypes2 = append(avroTypes2, dropValue(r, 19))
	}

	// Enough rows for ORC stripes of 4 KiB in 1 KiB snappy chunks.
	var orcMany []goRow
	for i := 0; i < 6000; i++ {
		orcMany = append(orcMany, ins(fmt.Sprintf("2024-01-%02d", i%3+1), int32(i), fmt.Sprintf("v%d-%s", i, strings.Repeat("x", i%17))))
	}

	// ORC: CHAR is read back right-trimmed (Java's ORC reader, and ours, trim
	// what ORC's writer pads), so the ORC types table drops c; instants in
	// (-1 s, 0) with more than a millisecond of fraction are read one second
	// later by every ORC reader (Java writes them so too, see the scenario
	// orc_timestamps_epoch), and pypaimon reads ORC timestamps as
	// nanoseconds (years 1677..2262): those values move.
	orcFields, orcTypes1, orcTypes2 := dropColumn(typeFields, types1, "c"), []goRow(nil), []goRow(nil)
	for _, r := range types1 {
		orcTypes1 = append(orcTypes1, dropValue(r, 9))
	}
	for _, r := range types2 {
		orcTypes2 = append(orcTypes2, dropValue(r, 9))
	}
	orcTypes1[1].values[16] = ts("1969-12-31T23:59:58.999")       // ts3
	orcTypes1[1].values[18] = ts("1969-12-31T23:59:58.999999999") // ts9
	orcTypes2[1].values[17] = ts("2262-04-11T23:47:16.854775")    // ts6

	return append([]goTable{
		{name: "go_append_types", fields: typeFields, options: map[string]string{"bucket": "-1"},
			engine: "append", commits: [][]goRow{types1, types2}},
		{name: "go_append_part", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1"}, engine: "append", commits: [][]goRow{part1, part2}},
		{name: "go_append_part_escape", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1"}, engine: "append", commits: [][]goRow{{
				ins(nil, int32(1), "null"), ins("", int32(2), "blank"), ins("a:b", int32(3), "colon"),
				ins("x=y/z", int32(4), "eq-slash"), ins("100%", int32(5), "percent"),
				ins("sp ace", int32(6), "space"),
			}}},
		{name: "go_append_bucket2", fields: bucketFields, partitionKeys: []string{"p"},
			options: map[string]string{"bucket": "2", "bucket-key": "id"}, engine: "append",
			commits: [][]goRow{b1, b2}},
		{name: "go_pk_dedupe", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_partial_update",
			fields: []types.DataField{field("id", types.Int()), field("a", types.Int()),
				field("b", types.String()), field("c", types.Double())},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "1", "merge-engine": "partial-update"},
			engine: "partial-update", commits: [][]goRow{
				{ins(int32(1), int32(1), nil, nil), ins(int32(2), nil, "x", nil)},
				{ins(int32(1), nil, "y", 1.5), ins(int32(3), int32(3), nil, nil), ins(int32(2), int32(20), nil, 2.5)},
				{ins(int32(1), int32(100), nil, nil)},
			}},
		{name: "go_pk_aggregation",
			fields: []types.DataField{field("id", types.Int()), field("total", types.BigInt()),
				field("mx", types.Int()), field("tag", types.String())},
			primaryKeys: []string{"id"},
			options: map[string]string{"bucket": "2", "merge-engine": "aggregation",
				"fields.total.aggregate-function": "sum", "fields.mx.aggregate-function": "max"},
			engine: "aggregation", commits: [][]goRow{
				agg1,
				{ins(int32(1), int64(5), int32(0), nil), ins(int32(2), nil, int32(99), "u2"),
					ins(int32(1), int64(1), int32(50), "u1"), ins(int32(6), nil, nil, nil)},
				{ins(int32(3), int64(-30), int32(2), nil), ins(int32(6), int64(6), nil, "t6")},
			}},
		{name: "go_pk_sequence_field",
			fields:      []types.DataField{field("id", types.Int()), field("v", types.String()), field("seq", types.BigInt())},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "1", "sequence.field": "seq"},
			engine: "deduplicate", commits: [][]goRow{
				{ins(int32(1), "a", int64(10)), ins(int32(2), "b", int64(5))},
				{ins(int32(1), "old", int64(3)), ins(int32(2), "new", int64(7)), ins(int32(1), "tie", int64(10)),
					withKind(row.RowKindDelete, int32(2), "gone-but-older", int64(1))},
			}},
		{name: "go_rt_append_part", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "2", "bucket-key": "id", "realtime.enabled": "true"},
			engine:  "append", commits: [][]goRow{part1, part2}, mode: "realtime"},
		// realtime.provider and a service file (package serve) ride along:
		// the peers must read a served table's committed rows unharmed.
		{name: "go_rt_pk_dedupe", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "realtime.enabled": "true", "realtime.provider": "flight"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "realtime"},
		{name: "go_pk_dedupe_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		{name: "go_pk_dedupe_manifests_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "manifest.merge-min-count": "100"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "manifests"},
		{name: "go_pk_aggregation_compacted",
			fields: []types.DataField{field("id", types.Int()), field("total", types.BigInt()),
				field("mx", types.Int()), field("tag", types.String())},
			primaryKeys: []string{"id"},
			options: map[string]string{"bucket": "2", "merge-engine": "aggregation",
				"fields.total.aggregate-function": "sum", "fields.mx.aggregate-function": "max"},
			engine: "aggregation", mode: "compact", commits: [][]goRow{
				agg1,
				{ins(int32(1), int64(5), int32(0), nil), ins(int32(2), nil, int32(99), "u2"),
					ins(int32(1), int64(1), int32(50), "u1"), ins(int32(6), nil, nil, nil)},
				{ins(int32(3), int64(-30), int32(2), nil), ins(int32(6), int64(6), nil, "t6")},
			}},
		// Dynamic buckets (bucket = -1, two keys per bucket): plain, compacted,
		// and by one writer per commit, all assigning from the empty table
		// (the committer reconciles their assignments).
		{name: "go_pk_dynamic_bucket", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_dynamic_bucket_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		{name: "go_pk_dynamic_bucket_concurrent", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "concurrent"},
		// Cross-partition upsert (bucket = -1, primary key id without the
		// partition field region): keys move between partitions, move
		// again, are deleted and inserted anew, one batch holds a key in
		// three partitions; plain, compacted, first-row, and partial-update
		// (a key stays in its first partition, Java UseOldExistingProcessor).
		{name: "go_pk_cross_partition", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
			engine: "deduplicate", commits: [][]goRow{xp1, xp2, xp3}},
		{name: "go_pk_cross_partition_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
			engine: "deduplicate", commits: [][]goRow{xp1, xp2, xp3}, mode: "compact"},
		{name: "go_pk_cross_partition_first_row", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "-1", "merge-engine": "first-row"},
			engine: "first-row", commits: [][]goRow{xpIns(xp1), xpIns(xp2), xpIns(xp3)}},
		{name: "go_pk_cross_partition_partial", fields: []types.DataField{field("id", notNull(types.Int())), field("region", types.String()),
			field("a", types.String()), field("b", types.String())}, partitionKeys: []string{"region"},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "-1", "merge-engine": "partial-update"},
			engine: "partial-update", commits: [][]goRow{
				{ins(int32(1), "x", "a1", nil), ins(int32(2), "x", nil, "b2"), ins(int32(1), "y", nil, "b1")},
				{ins(int32(1), "z", "a1v2", nil), ins(int32(3), "y", "a3", "b3"), ins(int32(2), "y", "a2", nil)},
				{ins(int32(3), "x", nil, "b3v2"), ins(int32(4), "z", "a4", nil)},
			},
			want: [][]any{{int32(1), "x", "a1v2", "b1"}, {int32(2), "x", "a2", "b2"}, {int32(3), "y", "a3", "b3v2"}, {int32(4), "z", "a4", nil}}},
		// Postpone buckets (bucket = -2): batch writes go straight into real
		// buckets, postpone.default-bucket-num per new partition.
		{name: "go_pk_postpone", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-2", "postpone.default-bucket-num": "3"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_postpone_avro", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-2", "file.format": "avro"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		// Postpone buckets written into bucket-postpone
		// (postpone.batch-write-fixed-bucket = false, Java's
		// PostponeBucketWriter files), then our postpone compaction routes
		// the rows into real buckets (2 per partition), in Parquet and ORC.
		{name: "go_pk_postpone_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false", "postpone.default-bucket-num": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		{name: "go_pk_postpone_compacted_orc", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false", "file.format": "orc"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		// Deletion-vector and first-row postpone tables (batch reads skip
		// level 0): each compaction lookup-compacts the routed rows up onto
		// the earlier ones, marking replaced rows in deletion vectors.
		{name: "go_pk_postpone_dv_compacted", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false",
				"postpone.default-bucket-num": "2", "deletion-vectors.enabled": "true"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact-each"},
		{name: "go_pk_postpone_first_row_compacted",
			fields:      []types.DataField{field("id", types.Int()), field("v", types.String())},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false",
				"postpone.default-bucket-num": "2", "merge-engine": "first-row"},
			engine: "first-row", commits: [][]goRow{
				{ins(int32(1), "first-1"), ins(int32(2), "first-2"), ins(int32(1), "second-1")},
				{ins(int32(2), "second-2"), ins(int32(3), "first-3")},
				{ins(int32(3), "second-3"), ins(int32(4), "first-4"), ins(int32(1), "third-1")},
			}, mode: "compact-each"},
		{name: "go_pk_dv_dedupe", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_first_row",
			fields:      []types.DataField{field("id", types.Int()), field("v", types.String())},
			primaryKeys: []string{"id"}, options: map[string]string{"bucket": "2", "merge-engine": "first-row"},
			engine: "first-row", commits: [][]goRow{
				{ins(int32(1), "first-1"), ins(int32(2), "first-2"), ins(int32(1), "second-1")},
				{ins(int32(2), "second-2"), ins(int32(3), "first-3")},
				{ins(int32(3), "second-3"), ins(int32(4), "first-4"), ins(int32(1), "third-1")},
			}},
		{name: "go_pk_dedupe_concurrent", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "concurrent"},
		{name: "go_pk_dedupe_concurrent_cleaned", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "cleaned"},
		{name: "go_pk_aggregation_concurrent",
			fields: []types.DataField{field("id", types.Int()), field("total", types.BigInt()),
				field("mx", types.Int()), field("tag", types.String())},
			primaryKeys: []string{"id"},
			options: map[string]string{"bucket": "2", "merge-engine": "aggregation",
				"fields.total.aggregate-function": "sum", "fields.mx.aggregate-function": "max"},
			engine: "aggregation", mode: "concurrent", commits: [][]goRow{
				agg1,
				{ins(int32(1), int64(5), int32(0), nil), ins(int32(2), nil, int32(99), "u2"),
					ins(int32(1), int64(1), int32(50), "u1"), ins(int32(6), nil, nil, nil)},
				{ins(int32(3), int64(-30), int32(2), nil), ins(int32(6), int64(6), nil, "t6")},
			}},
		{name: "go_pk_dedupe_auto_expired", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"},
			options:     map[string]string{"bucket": "2", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2"},
			engine:      "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "expire", earliest: 4},
		{name: "go_append_partitions_expired", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1", "partition.expiration-time": "1 d",
				"partition.expiration-check-interval": "0", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2"},
			engine: "append", mode: "expire", earliest: 5,
			commits: [][]goRow{part1, {ins("2999-01-01", int32(20), "f20"), ins("2999-01-01", int32(21), "f21")}, part2,
				{ins("2999-01-02", int32(22), "f22")}},
			keep: func(v []any) bool { return strings.HasPrefix(v[0].(string), "2999") }},
		{name: "go_append_compacted", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1"}, engine: "append", commits: [][]goRow{part1, part2, part1, part2},
			mode: "compact"},
		{name: "go_append_types_orc", fields: orcFields,
			options: map[string]string{"bucket": "-1", "file.format": "orc"},
			engine:  "append", commits: [][]goRow{orcTypes1, orcTypes2}},
		{name: "go_append_orc_stripes", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1", "file.format": "orc", "file.compression": "snappy",
				"orc.stripe.size": "4096", "orc.compress.size": "1024"},
			engine: "append", commits: [][]goRow{orcMany}},
		{name: "go_append_orc_zlib_compacted", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1", "file.format": "orc", "file.compression": "zlib"},
			engine:  "append", commits: [][]goRow{part1, part2, part1, part2}, mode: "compact"},
		{name: "go_pk_dedupe_orc", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "file.format": "orc"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_dedupe_orc_levels", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"},
			options: map[string]string{"bucket": "2", "file.format": "parquet", "file.format.per.level": "0:orc",
				"file.compression.per.level": "0:lz4"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "manifests"},
		// data-file.path-directory: files below data/<partition>/bucket-<n> (issue 13).
		{name: "go_pk_dedupe_path_directory", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "data-file.path-directory": "data"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		{name: "go_append_path_directory", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1", "data-file.path-directory": "data"}, engine: "append",
			commits: [][]goRow{part1, part2}},
		{name: "go_append_types_avro", fields: avroFields,
			options: map[string]string{"bucket": "-1", "file.format": "avro"},
			engine:  "append", commits: [][]goRow{avroTypes1, avroTypes2}},
		{name: "go_append_avro_snappy_compacted", fields: partFields, partitionKeys: []string{"dt"},
			options: map[string]string{"bucket": "-1", "file.format": "avro", "file.compression": "snappy"},
			engine:  "append", commits: [][]goRow{part1, part2, part1, part2}, mode: "compact"},
		{name: "go_pk_dedupe_avro", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: map[string]string{"bucket": "2", "file.format": "avro"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}},
		{name: "go_pk_dedupe_avro_levels", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"},
			options: map[string]string{"bucket": "2", "file.format": "parquet", "file.format.per.level": "0:avro",
				"file.compression.per.level": "0:deflate"},
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "manifests"},
		// data-file.external-paths: every data file below one of two roots
		// outside the table, round-robin (issue 13; extpath_test.go).
		{name: "go_pk_dedupe_external_paths", fields: pkFields, partitionKeys: []string{"region"},
			primaryKeys: []string{"region", "id"}, options: externalOptions("go_pk_dedupe_external_paths", "round-robin"),
			engine: "deduplicate", commits: [][]goRow{pk1, pk2, pk3, pk4}, mode: "compact"},
		{name: "go_append_external_paths_entropy", fields: partFields, partitionKeys: []string{"dt"},
			options: withOption(externalOptions("go_append_external_paths_entropy", "entropy-inject"), "bucket", "-1"),
			engine:  "append", commits: [][]goRow{part1, part2}},
	}, append(append(append(aggGoTables(), castGoTables()...), sketchGoTables()...), hllGoTables()...)...)
}

// dropColumn returns fields without the field named name.
func dropColumn(fields []types.DataField, _ []goRow, name string) []types.DataField {
	var out []types.DataField
	for _, f := range fields {
		if f.Name != name {
			out = append(out, f)
		}
	}
	return out
}

// dropValue returns r without its value at index i.
func dropValue(r goRow, i int) goRow {
	v := append(append([]any(nil), r.values[:i]...), r.values[i+1:]...)
	return goRow{kind: r.kind, values: v}
}

// finalRows applies the table's merge semantics to its rows in write order.
func (g goTable) finalRows() [][]any {
	if g.want != nil {
		return g.want
	}
	var rows []goRow
	for _, c := range g.commits {
		rows = append(rows, c...)
	}
	if g.engine == "append" {
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = r.values
		}
		return out
	}
	idx := map[string]int{}
	for i, f := range g.fields {
		idx[f.Name] = i
	}
	seq := -1
	if s, ok := g.options["sequence.field"]; ok {
		seq = idx[s]
	}
	state := map[string][]any{}
	var order []string
	for _, r := range rows {
		var kb strings.Builder
		for _, k := range g.primaryKeys {
			fmt.Fprintf(&kb, "%v|", r.values[idx[k]])
		}
		key := kb.String()
		old, exists := state[key]
		retract := r.kind == row.RowKindDelete || r.kind == row.RowKindUpdateBefore
		if !exists {
			order = append(order, key)
		}
		switch g.engine {
		case "first-row":
			if !exists {
				state[key] = append([]any(nil), r.values...)
			}
		case "deduplicate":
			if seq >= 0 && exists && old != nil && r.values[seq].(int64) < old[seq].(int64) {
				continue
			}
			if retract {
				state[key] = nil
			} else {
				state[key] = append([]any(nil), r.values...)
			}
		case "partial-update":
			if old == nil {
				state[key] = append([]any(nil), r.values...)
				continue
			}
			for i, v := range r.values {
				if v != nil {
					old[i] = v
				}
			}
		case "aggregation":
			if old == nil {
				state[key] = append([]any(nil), r.values...)
				continue
			}
			for i, v := range r.values {
				if v == nil {
					continue
				}
				if old[i] == nil {
					old[i] = v
					continue
				}
				switch g.options["fields."+g.fields[i].Name+".aggregate-function"] {
				case "sum":
					old[i] = old[i].(int64) + v.(int64)
				case "max":
					old[i] = max(old[i].(int32), v.(int32))
				default:
					old[i] = v
				}
			}
		default:
			panic("unknown engine " + g.engine)
		}
	}
	var out [][]any
	for _, k := range order {
		if v := state[k]; v != nil {
			out = append(out, v)
		}
	}
	return out
}

// write creates the table in the warehouse at whURL with our catalog and
// writes each commit with a fresh writer.Write and commit.Committer (as a
// batch job would), passing row kinds through writer.DefaultRowKindColumn.
// It returns the table directory relative to the warehouse.
func (g goTable) write(ctx context.Context, whURL string) (string, error) {
	cat, err := catalog.Open(ctx, whURL)
	if err != nil {
		return "", err
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		return "", err
	}
	id := catalog.NewIdentifier("interop", g.name)
	err = cat.CreateTable(ctx, id, catalog.Schema{
		Fields: g.createFields(), PartitionKeys: g.partitionKeys, PrimaryKeys: g.primaryKeys, Options: whOptions(g.options, whURL),
	}, false)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", id, err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		return "", err
	}
	user := "interop-go-" + g.name
	if g.mode == "realtime" {
		if err := g.writeRealtime(ctx, tbl, user); err != nil {
			return "", err
		}
		if g.options["realtime.provider"] == "flight" {
			rec := serve.Service{Location: "grpc+tcp://127.0.0.1:1", PID: 1, CommitUser: user}
			if err := serve.WriteService(ctx, tbl.FileIO, rec); err != nil {
				return "", err
			}
		}
		return catalog.TablePath(id), nil
	}
	if g.mode == "concurrent" || g.mode == "cleaned" {
		if err := g.writeConcurrent(ctx, tbl, user); err != nil {
			return "", err
		}
		if g.mode == "cleaned" {
			if err := g.cleanUp(ctx, tbl, user); err != nil {
				return "", err
			}
		}
		return catalog.TablePath(id), nil
	}
	if g.mode == "expire" {
		if err := g.writeExpire(ctx, tbl, user); err != nil {
			return "", err
		}
		return catalog.TablePath(id), nil
	}
	for i, rows := range g.commits {
		if g.retype != nil && i == 0 {
			if tbl, err = g.writeRetyped(ctx, cat, id, user, rows); err != nil {
				return "", err
			}
			continue
		}
		if g.mode == "manifests" && i == len(g.commits)-1 {
			if sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user+"-compact", compaction.Options{Full: true}); err != nil || sid == 0 {
				return "", fmt.Errorf("%s full compaction: snapshot %d, %w", g.name, sid, err)
			}
		}
		if err := commitRows(ctx, tbl, user, int64(i+1), rows, len(g.primaryKeys) > 0); err != nil {
			return "", fmt.Errorf("%s commit %d: %w", g.name, i+1, err)
		}
		if g.mode == "compact-each" {
			if sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user+"-compact", compaction.Options{}); err != nil || sid == 0 {
				return "", fmt.Errorf("%s compaction after commit %d: snapshot %d, %w", g.name, i+1, sid, err)
			}
		}
	}
	if g.mode == "manifests" {
		c, err := commit.New(tbl.FileIO, tbl.Schema, user+"-manifests")
		if err != nil {
			return "", err
		}
		sid, err := c.CompactManifests(ctx)
		c.Close()
		if err != nil || sid == 0 {
			return "", fmt.Errorf("%s manifest compaction: snapshot %d, %w", g.name, sid, err)
		}
	}
	if g.mode == "compact" {
		sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user+"-compact", compaction.Options{Full: true})
		if err != nil {
			return "", fmt.Errorf("%s full compaction: %w", g.name, err)
		}
		if sid == 0 {
			return "", fmt.Errorf("%s full compaction committed nothing", g.name)
		}
	}
	return catalog.TablePath(id), nil
}

// writeConcurrent prepares every commit's rows with its own writer before
// committing any and commits them in order with one committer each: the
// rows equal the commits applied in order.
func (g goTable) writeConcurrent(ctx context.Context, tbl *catalog.Table, user string) error {
	msgs := make([][]commit.Message, len(g.commits))
	for i, rows := range g.commits {
		rec, err := rowsBatch(tbl, rows, true)
		if err != nil {
			return err
		}
		w, err := writer.New(tbl.FileIO, tbl.Schema, fmt.Sprintf("%s-%d", user, i))
		if err == nil {
			err = w.Write(ctx, rec)
		}
		if err == nil {
			msgs[i], err = w.PrepareCommit(ctx)
		}
		rec.Release()
		if w != nil {
			w.Close()
		}
		if err != nil {
			return fmt.Errorf("%s writer %d: %w", g.name, i, err)
		}
	}
	for i := range msgs {
		c, err := commit.New(tbl.FileIO, tbl.Schema, fmt.Sprintf("%s-%d", user, i))
		if err != nil {
			return err
		}
		_, err = c.Commit(ctx, 1, msgs[i])
		c.Close()
		if err != nil {
			return fmt.Errorf("%s commit %d: %w", g.name, i, err)
		}
	}
	return nil
}

// cleanUp compacts the table fully, expires every snapshot but the latest
// and removes the orphan files (the originals the committer re-sequenced,
// the files of the expired snapshots' manifests are already gone): the
// table the peers then read went through all three.
func (g goTable) cleanUp(ctx context.Context, tbl *catalog.Table, user string) error {
	if sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user+"-compact", compaction.Options{Full: true}); err != nil || sid == 0 {
		return fmt.Errorf("%s full compaction: snapshot %d, %w", g.name, sid, err)
	}
	res, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil || len(res.Expired) == 0 {
		return fmt.Errorf("%s expiration: %d expired, %w", g.name, len(res.Expired), err)
	}
	cleaned, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Second), ExternalPaths: true})
	if err != nil || len(cleaned.Deleted) == 0 {
		return fmt.Errorf("%s orphan cleaning: %d deleted, %w", g.name, len(cleaned.Deleted), err)
	}
	return nil
}

// writeRealtime writes each commit's rows through a real-time context: Write,
// PrepareCommitWithProgress, CommitWithProgress and RefreshCommittedSnapshot,
// so the table's snapshots carry realtime.offsets for the peers to ignore.
func (g goTable) writeRealtime(ctx context.Context, tbl *catalog.Table, user string) error {
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{})
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := rc.NewWrite(user)
	if err != nil {
		return err
	}
	defer w.Close()
	cm, err := rc.NewCommit(user)
	if err != nil {
		return err
	}
	withKind := len(g.primaryKeys) > 0
	for i, rows := range g.commits {
		rec, err := rowsBatch(tbl, rows, withKind)
		if err != nil {
			return err
		}
		err = w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s real-time write %d: %w", g.name, i+1, err)
		}
		prog, err := w.PrepareCommitWithProgress(ctx, int64(i+1))
		if err != nil {
			return fmt.Errorf("%s prepare %d: %w", g.name, i+1, err)
		}
		sid, err := cm.CommitWithProgress(ctx, prog, int64(i+1), nil)
		if err != nil {
			return fmt.Errorf("%s commit %d: %w", g.name, i+1, err)
		}
		if err := rc.RefreshCommittedSnapshot(ctx, sid); err != nil {
			return fmt.Errorf("%s refresh %d: %w", g.name, sid, err)
		}
	}
	return nil
}

// writeExpire commits each commit's rows through paimon.Table.NewCommit,
// which expires snapshots and partitions after every commit by the table's
// options, with a full compaction before the last commit of a primary-key
// table; it checks that the
// expiration left EARLIEST at g.earliest.
func (g goTable) writeExpire(ctx context.Context, tbl *catalog.Table, user string) error {
	pt, err := paimon.OpenTable(ctx, tbl.FileIO.URL())
	if err != nil {
		return err
	}
	defer pt.Close()
	withKind := len(g.primaryKeys) > 0
	for i, rows := range g.commits {
		if i == len(g.commits)-1 && withKind {
			if sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user+"-compact", compaction.Options{Full: true}); err != nil || sid == 0 {
				return fmt.Errorf("%s full compaction: snapshot %d, %w", g.name, sid, err)
			}
		}
		rec, err := rowsBatch(tbl, rows, withKind)
		if err != nil {
			return err
		}
		w, err := pt.NewWrite(user)
		if err != nil {
			rec.Release()
			return err
		}
		err = w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			w.Close()
			return err
		}
		msgs, err := w.PrepareCommit(ctx)
		w.Close()
		if err != nil {
			return err
		}
		cm, err := pt.NewCommit(user)
		if err != nil {
			return err
		}
		_, err = cm.Commit(ctx, int64(i+1), msgs)
		cm.Close()
		if err != nil {
			return fmt.Errorf("%s commit %d: %w", g.name, i+1, err)
		}
	}
	if e, err := pt.Snapshots().EarliestID(ctx); err != nil || e != g.earliest {
		return fmt.Errorf("%s: earliest snapshot %d (%v) after automatic expiration, want %d", g.name, e, err, g.earliest)
	}
	return nil
}

// commitRows writes rows into tbl with a fresh writer.Write and commits them as
// commit identifier of user. With withKind the row kinds are passed through
// writer.DefaultRowKindColumn (an Int8 column).
func commitRows(ctx context.Context, tbl *catalog.Table, user string, identifier int64, rows []goRow, withKind bool) error {
	rec, err := rowsBatch(tbl, rows, withKind)
	if err != nil {
		return err
	}
	defer rec.Release()
	_, err = tabletest.Commit(ctx, tbl, user, identifier, rec)
	return err
}

// rowsBatch builds the Arrow batch of rows for tbl, with an Int8
// writer.DefaultRowKindColumn when withKind is set.
func rowsBatch(tbl *catalog.Table, rows []goRow, withKind bool) (arrow.RecordBatch, error) {
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	if withKind {
		sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.PrimitiveTypes.Int8}), nil)
	}
	values := make([][]any, len(rows))
	for i, r := range rows {
		values[i] = r.values
		if withKind {
			values[i] = append(slices.Clip(r.values), int8(r.kind))
		}
	}
	return tabletest.NewBatch(sc, values...)
}

// expectedJSONL formats the table's final rows with rowfmt, the format every
// reader prints.
func (g goTable) expectedJSONL(fields []types.DataField) ([]byte, error) {
	rows := g.finalRows()
	if g.keep != nil {
		rows = slices.DeleteFunc(rows, func(v []any) bool { return !g.keep(v) })
	}
	return tabletest.FormatJSONL(fields, rows...)
}
