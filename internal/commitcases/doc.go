// Package commitcases holds end-to-end tests of the commit path that span
// writer, commit, manifest and reader (issue 3, "Bad input and faults" and
// acceptance cases (e) and (f)): manifest pruning by partition statistics
// during scan planning, DELETE entries that survive a partial manifest merge,
// object-store faults in the middle of a commit, and a missing or stale
// LATEST hint; and committers racing in separate OS processes (issue 11),
// whose histories are checked for linearizability and whose rows are
// counted (race_test.go, with package internal/commitrace; the test binary
// re-executes itself as the workers, see TestMain). The package has no API;
// everything is in its test files.
//
// Faults are injected between fileio and a real MinIO server by an HTTP
// proxy in the test files (fileio has no constructor that takes a custom
// gocloud bucket), so those tests need MinIO; see package testenv.
package commitcases
