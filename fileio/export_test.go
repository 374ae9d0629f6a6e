package fileio

import "time"

// SetRequestTimeout sets the per-attempt timeout of f's store (tests).
func SetRequestTimeout(f *FileIO, d time.Duration) { f.s.retry.requestTimeout = d }
