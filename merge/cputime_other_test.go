//go:build !unix

package merge

func processCPU() int64 { return 0 }
