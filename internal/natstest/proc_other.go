//go:build !linux

package natstest

import "os/exec"

// dieWithParent does nothing where the system cannot tie a child's life
// to its parent's; the test's cleanup kills the servers.
func dieWithParent(*exec.Cmd) {}
