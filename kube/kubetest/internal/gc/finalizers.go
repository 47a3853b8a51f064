// SPDX-License-Identifier: Apache-2.0

package gc

import "slices"

// The finalizers by which the collector holds an owner being deleted.
const (
	FinalizerOrphan     = "orphan"
	FinalizerForeground = "foregroundDeletion"
)

// Finalizers returns the finalizers an object keeps when it is deleted
// with propagation (Orphan, Background, Foreground, or "" for the
// default), and whether they differ from fins, as the API server sets
// them: the policy asked for, else the one an existing finalizer names,
// else Orphan when its kind orphans by default. fins is not modified.
func Finalizers(fins []string, propagation string, orphanByDefault bool) ([]string, bool) {
	orphan, foreground := propagation == "Orphan", propagation == "Foreground"
	if propagation == "" {
		if i := slices.IndexFunc(fins, func(f string) bool { return f == FinalizerOrphan || f == FinalizerForeground }); i >= 0 {
			orphan, foreground = fins[i] == FinalizerOrphan, fins[i] == FinalizerForeground
		} else {
			orphan = orphanByDefault
		}
	}
	out := make([]string, 0, len(fins)+1)
	for _, f := range fins {
		if f != FinalizerOrphan && f != FinalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, FinalizerOrphan)
	}
	if foreground {
		out = append(out, FinalizerForeground)
	}
	if sameSet(fins, out) {
		return fins, false
	}
	return out, true
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
