// Package interop holds the cross-implementation test harness of paimon-go:
// pypaimon (interop/python) and Java Paimon (interop/java) write tables that
// our reader must return exactly, and read the tables our writer and commit
// produce, printing rows that must equal what we wrote.
//
// The package has no library code. Its tests carry the build tag "interop"
// and need the peers installed; scripts/interop.sh installs them (a cached
// Python venv and a Maven-built jar) and runs
//
//	go test -tags interop -count=1 -v ./interop/...
//
// with PAIMON_INTEROP_PYTHON (the venv's python) and PAIMON_INTEROP_JAVA_CP
// (the peer's class path) set. A peer that is not configured fails its cells
// rather than skipping them.
//
// TestJavaScenarios runs the Java peer's scenarios (interop/java Scenarios.all):
// tables created, written, altered and compacted through Java's API. Java reads
// each at every snapshot and at the latest, and our reader must return exactly
// those rows, or fail where Java's read fails. PAIMON_INTEROP_SCENARIOS=a,b
// runs only the named scenarios.
//
// Every peer prints rows as JSON Lines in the format of `paimon cat --format
// jsonl` (package rowfmt). Rows are compared as multisets after a canonical
// re-encoding that only normalises number spelling (1e-07 vs 1e-7, 1.0 vs 1)
// and key order; every value must otherwise be equal.
package interop
