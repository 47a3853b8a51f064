// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/disruption"
)

// This file is the PodDisruptionBudget half of pods/eviction: which pods
// a budget guards, which budgets cover a pod, and the charge an eviction
// makes on the one budget that covers it, as kube-apiserver 1.36.3 does.
// No disruption controller runs, so a budget's status is what clients
// wrote through its status subresource: a budget created and never given
// a status.observedGeneration refuses every eviction it guards, as it
// does on a real server without kube-controller-manager's disruption
// controller.

// budgetIgnores reports whether a budget leaves pod alone: a pod that is
// Pending, Succeeded or Failed, or being deleted, is evicted whatever
// the budgets covering it say.
func budgetIgnores(pod *record, o obj) bool {
	return pod.deleting || disruption.Unguarded(o)
}

// budgetCharge is what a budget allows an eviction.
type budgetCharge struct {
	// budget names the one budget covering the pod, "" for none.
	budget string
	// unhealthy says the pod is evicted as an unhealthy pod the budget
	// lets go without a charge: its deletion must not race the pod
	// becoming ready, so a conflict of the deletion answers the budget's
	// 429 (see serveEviction).
	unhealthy bool
}

// chargeBudgetLocked finds the budgets covering pod (its namespace's,
// whose selector matches its labels; a budget without a selector
// covers nothing) and charges the eviction to the one there is: it
// decrements status.disruptionsAllowed and records the pod in
// status.disruptedPods, a status write by kube-apiserver, unless wr is a
// dry run. More than one budget is the real server's 500; a budget that
// cannot allow it answers 429 or 403. It decodes every budget of the
// pod's namespace: O(budgets there). The caller holds s.mu.
func (s *Server) chargeBudgetLocked(wr *write, pod *record, o obj) (budgetCharge, *kube.StatusError) {
	res := s.reg.lookup("policy", "v1", "poddisruptionbudgets")
	col := s.cols[res.colKey()]
	var covering []*record
	var b obj // the last covering budget, decoded
	for _, r := range col.objects {
		if r.namespace != pod.namespace {
			continue
		}
		if d := mustDecode(r.raw); disruption.Selects(d, pod.labels) {
			covering, b = append(covering, r), d
		}
	}
	switch len(covering) {
	case 0:
		return budgetCharge{}, nil
	case 1:
	default:
		return budgetCharge{}, apierr.New(http.StatusInternalServerError, "",
			"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", nil)
	}
	prev := covering[0]
	charge := budgetCharge{budget: prev.name}
	if disruption.LetsUnhealthyGo(b, o) {
		charge.unhealthy = true
		return charge, nil
	}
	if r := disruption.Charge(b, pod.name, nowString()); r != nil {
		return budgetCharge{}, r.Status()
	}
	if wr.dryRun {
		return charge, nil
	}
	bw := &write{res: res, col: col, namespace: prev.namespace, name: prev.name, sub: "status", manager: "kube-apiserver"}
	if _, err := s.updateLocked(bw, b, nil); err != nil {
		return budgetCharge{}, err
	}
	return charge, nil
}
