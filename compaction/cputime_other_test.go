//go:build !unix

package compaction_test

func processCPU() int64 { return 0 }
