package testenv

import "syscall"

// sysProcAttr makes a server die with the test binary even if Main does not
// get to stop it (e.g. the binary is killed by a timeout).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
