package row

// fixtureExpectations are entry summaries (see TestFixtureManifests) checked by
// hand against the written rows listed in each table's EXPECTED.md: partition,
// bucket, row count, min/max keys, key stats and value stats (min..max/null
// counts; strings truncated to 16 code points with the last one incremented,
// as Paimon's truncate(16) stats mode does; TIMESTAMP(9), BYTES and some
// other columns have no min/max in these Parquet-written files).
var fixtureExpectations = map[string][]string{
	"append_complex_data_parquet": {
		`0 f1=10/ b0 rows=2 key=()..() keystats=()..()/[] values=(10, 1, 1234, null, 12.30000, null)..(10, 1, 19909, null, 123456789987654321.45678, null)/[0 0 0 0 0 0] cols=null`,
		`0 f1=20/ b0 rows=1 key=()..() keystats=()..()/[] values=(20, 1, -1234, null, -123456789987654321.45678, null)..(20, 1, -1234, null, -123456789987654321.45678, null)/[0 0 0 0 0 0] cols=null`,
		`0 f1=20/ b1 rows=1 key=()..() keystats=()..()/[] values=(20, 0, -100, null, 0.00000, null)..(20, 0, -100, null, 0.00000, null)/[0 0 0 1 0 0] cols=null`,
		`0 f1=10/ b0 rows=3 key=()..() keystats=()..()/[] values=(10, 1, 0, null, -123.45000, null)..(10, 1, 100, null, 0.00000, null)/[0 0 1 0 1 0] cols=null`,
		`0 f1=10/ b0 rows=1 key=()..() keystats=()..()/[] values=(10, 1, 20006, null, 1728551410100.10010, null)..(10, 1, 20006, null, 1728551410100.10010, null)/[0 0 0 0 0 1] cols=null`,
		`0 f1=10/ b0 rows=6 key=()..() keystats=()..()/[] values=(10, 1, 0, null, -123.45000, null)..(10, 1, 20006, null, 123456789987654321.45678, null)/[0 0 1 0 1 1] cols=null`,
	},
	"append_table_with_rt_branch_parquet": {
		`0 dt=20240725/ b0 rows=1 key=("apple")..("apple") keystats=("apple")..("apple")/[0] values=("20240725", "apple", 4)..("20240725", "apple", 4)/[0 0 0] cols=null`,
		`0 dt=20240725/ b0 rows=2 key=()..() keystats=()..()/[] values=("20240725", "apple", 5)..("20240725", "banana", 7)/[0 0 0] cols=null`,
		`0 dt=20240725/ b1 rows=1 key=("peach")..("peach") keystats=("peach")..("peach")/[0] values=("20240725", "peach", 10)..("20240725", "peach", 10)/[0 0 0] cols=null`,
		`0 dt=20240726/ b0 rows=1 key=("cherry")..("cherry") keystats=("cherry")..("cherry")/[0] values=("20240726", "cherry", 3)..("20240726", "cherry", 3)/[0 0 0] cols=null`,
		`0 dt=20240726/ b1 rows=1 key=("pear")..("pear") keystats=("pear")..("pear")/[0] values=("20240726", "pear", 6)..("20240726", "pear", 6)/[0 0 0] cols=null`,
	},
	"append_with_multiple_ts_precision_and_timezone_parquet": {
		`0  b0 rows=3 key=()..() keystats=()..()/[] values=(1970-01-01 00:00:01.000000000, 1970-01-01 00:00:00.001000000, 1970-01-01 00:00:00.000001000, null, 1970-01-01 00:00:02.000000000, 1970-01-01 00:00:00.002000000, 1970-01-01 00:00:00.000002000, null)..(1970-01-01 00:00:05.000000000, 1970-01-01 00:00:00.005000000, 1970-01-01 00:00:00.000001000, null, 1970-01-01 00:00:06.000000000, 1970-01-01 00:00:00.004000000, 1970-01-01 00:00:00.000006000, null)/[0 0 2 1 0 1 0 1] cols=null`,
	},
	"pk_09_parquet": {
		`0 f1=20/ b0 rows=2 key=("Lucy", 1)..("Paul", 1) keystats=("Lucy", 1)..("Paul", 1)/[0 0] values=("Lucy", 20, 1, 14.1)..("Paul", 20, 1, 18.1)/[0 0 0 0] cols=null`,
		`0 f1=10/ b1 rows=5 key=("Alex", 0)..("Tony", 0) keystats=("Alex", 0)..("Tony", 0)/[0 0] values=("Alex", 10, 0, 12.1)..("Tony", 10, 0, 17.1)/[0 0 0 0] cols=null`,
		`0 f1=10/ b0 rows=2 key=("Alice", 1)..("Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.", 1) keystats=("Alice", 1)..("Two roads diverh", 1)/[0 0] values=("Alice", 10, 1, 11)..("Two roads diverh", 10, 1, 11.1)/[0 0 0 0] cols=null`,
		`0 f1=10/ b0 rows=2 key=("Lily", 1)..("Whether I shall turn out to be the hero of my own life.", 1) keystats=("Lily", 1)..("Whether I shall!", 1)/[0 0] values=("Lily", 10, 1, 19.1)..("Whether I shall!", 10, 1, 20.1)/[0 0 0 0] cols=null`,
	},
	"pk_table_scan_and_read_dv_parquet": {
		`0 f1=10/ b1 rows=3 key=("Alex", 0)..("Skye", 0) keystats=("Alex", 0)..("Skye", 0)/[0 0] values=("Alex", 10, 0, 21)..("Skye", 10, 0, 21.2)/[0 0 0 0] cols=null`,
		`0 f1=10/ b1 rows=3 key=("Alex", 0)..("Skye2", 0) keystats=("Alex", 0)..("Skye2", 0)/[0 0] values=("Alex", 10, 0, 31)..("Skye2", 10, 0, 31.2)/[0 0 0 0] cols=null`,
		`0 f1=10/ b0 rows=2 key=("Alice", 1)..("Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.", 1) keystats=("Alice", 1)..("Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.", 1)/[0 0] values=("Alice", 10, 1, 11)..("Two roads diverh", 10, 1, 11.1)/[0 0 0 0] cols=null`,
	},
	"pk_table_with_alter_table_parquet": {
		`0 key0=0/key1=1/ b0 rows=3 key=(2)..(502) keystats=(2)..(502)/[0] values=(1, "Alice", 2, 4, 508, 6, 0, 509)..(1, "Two roads diverh", 502, 504, 508, 506, 0, 509)/[0 0 0 0 2 0 0 2] cols=null`,
		`0 key0=1/key1=1/ b0 rows=7 key=(22)..(82) keystats=(22)..(82)/[0] values=(1, 1, 22, 23, 24, 25, 26, "Alex")..(1, 1, 82, 83, 84, 85, 86, "Whether I shall!")/[0 0 0 0 0 0 0 0] cols=null`,
		`0 key0=0/key1=1/ b0 rows=1 key=(12)..(12) keystats=(12)..(12)/[0] values=(0, 1, 12, 93, 94, 95, 96, "Alice")..(0, 1, 12, 93, 94, 95, 96, "Alice")/[0 0 0 0 0 0 0 0] cols=null`,
	},
}

// fixtureBucketChecks is the number of bucket-key rows per table whose bucket
// is checked: two keys per PK entry, one per append entry whose bucket-key
// min == max.
var fixtureBucketChecks = map[string]int{
	"append_complex_data_parquet":              9,
	"append_table_with_rt_branch_parquet":      8,
	"pk_09_parquet":                            46,
	"pk_table_scan_and_read_dv_parquet":        32,
	"pk_table_scan_and_read_first_row_parquet": 26,
	"pk_table_scan_and_read_mor_parquet":       24,
	"pk_table_with_alter_table_parquet":        38,
}
