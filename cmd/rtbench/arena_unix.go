//go:build unix

package main

import "syscall"

// mapAnon maps n bytes of anonymous memory, outside the Go heap.
func mapAnon(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

func unmap(b []byte) { _ = syscall.Munmap(b) }
