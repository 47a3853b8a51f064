// SPDX-License-Identifier: Apache-2.0

//go:build unix

package kube

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd start in a process group of its own, which its
// children join unless they leave it, and makes the end of its context
// kill the whole group.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		// The group's id is the plugin's pid. Should the plugin exit and
		// be reaped as ctx ends, with no child left, the group is gone
		// (ESRCH); its id is taken again only after the kernel has gone
		// round all pids.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
