// Package roundtrip holds the model-based round-trip tests of the write
// path (issue 3, acceptance "Round trip"): random inserts, updates and
// deletes go through writer.Write, writer PrepareCommit and commit.Commit
// into tables of every shape (append, partitioned append, primary-key
// tables with each merge engine, deletes and sequence.field), the same
// operations drive an in-memory oracle that mirrors Java Paimon's merge
// functions, and after every commit the full table read through package
// reader must equal the oracle's rows exactly (as a multiset).
//
// The package has no non-test code; run it with
//
//	go test ./internal/roundtrip
package roundtrip
