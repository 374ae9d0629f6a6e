//go:build !linux

package testenv

import "syscall"

// sysProcAttr returns nil: outside Linux, servers are stopped by Main only.
func sysProcAttr() *syscall.SysProcAttr { return nil }
