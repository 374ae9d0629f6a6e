// Package faultmatrix holds the fault matrix of issue 12 part 1: every
// request a table operation (an append commit, a primary-key commit, a
// dedicated compaction, a manifest compaction, a snapshot expiration) makes
// to an object store is failed in turn, in each way an object store fails
// (a lost answer to an applied write, a lost answer followed by a failed
// read-back, S3's 409 ConditionalRequestConflict, 412, 503 SlowDown, 403,
// repeated 500s), by testenv.FaultProxy in front of MinIO; after the
// operation and the caller's retry, the table must read with exactly the
// expected rows, and every file every snapshot refers to must exist. The
// package has no API; everything is in its test files.
//
// The short form runs by default (the PUTs and DELETEs of snapshot files
// and of the EARLIEST hint); the long form (every request) runs with
// -faults.long:
//
//	go test ./internal/faultmatrix -run TestFaultMatrix -faults.long -v
//
// TestFaultMatrixGCS runs the same matrix on fake-gcs-server (through
// testenv.NewGCSFaultProxy), without the faults that repeat without end,
// and is skipped when the binary is absent. The other tests check the
// other create-if-absent callers (tags, schemas, offsets files).
package faultmatrix
