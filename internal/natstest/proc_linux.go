package natstest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server die with the test process, so a test
// binary killed before its cleanup leaves no server behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
