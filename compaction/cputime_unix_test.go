//go:build unix

package compaction_test

import "syscall"

// processCPU returns the user+system CPU time of the process in
// nanoseconds, so that the compaction benchmarks on a shared, busy machine
// can report CPU cost besides wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
