// SPDX-License-Identifier: Apache-2.0

package nscontroller

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
)

// MarkTerminating is the first DELETE of the namespace o (step 1 of the
// lifecycle): deletionTimestamp now, status.phase Terminating, and the
// orphan or foregroundDeletion finalizer that propagation ("Orphan",
// "Foreground", "Background", or "" to keep those o has) asks for.
func MarkTerminating(o map[string]any, propagation, now string) {
	meta, _ := o["metadata"].(obj)
	meta["deletionTimestamp"] = now
	st, _ := o["status"].(obj)
	if st == nil {
		st = obj{}
		o["status"] = st
	}
	st["phase"] = "Terminating"
	fins := stringList(meta, "finalizers")
	orphan, foreground := slices.Contains(fins, gc.FinalizerOrphan), slices.Contains(fins, gc.FinalizerForeground)
	switch propagation {
	case "Orphan":
		orphan, foreground = true, false
	case "Foreground":
		orphan, foreground = false, true
	case "Background":
		orphan, foreground = false, false
	}
	fins = slices.DeleteFunc(fins, func(f string) bool { return f == gc.FinalizerOrphan || f == gc.FinalizerForeground })
	if orphan {
		fins = append(fins, gc.FinalizerOrphan)
	}
	if foreground {
		fins = append(fins, gc.FinalizerForeground)
	}
	if len(fins) > 0 {
		meta["finalizers"] = anyList(fins)
	} else {
		delete(meta, "finalizers")
	}
}
