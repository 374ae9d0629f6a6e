// Package realtime is the real-time layer of Paimon (PIP-46, first built in
// apache/paimon-cpp as RealtimeContext, RealtimeStore and the *WithProgress
// operations): rows a writer accepts are queryable at once from the same
// process through a pluggable in-memory Store, commits roll sealed rows into
// ordinary data files and record per partition-bucket progress with the
// snapshot (package progress), and scans union the committed files with the
// in-memory rows above that progress.
//
// See shared/docs/realtime-design.md for the contract this package mirrors.
package realtime
