// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
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

// budgetRetryAfter is the Retry-After of the 429 a budget not yet
// processed causes; the 429 of a budget that allows no disruption says
// no time.
const budgetRetryAfter = 10 * time.Second

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
		return budgetCharge{}, statusError(http.StatusInternalServerError, "",
			"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", nil)
	}
	prev := covering[0]
	charge := budgetCharge{budget: prev.name}
	if disruption.LetsUnhealthyGo(b, o) {
		charge.unhealthy = true
		return charge, nil
	}
	if r := disruption.Charge(b, pod.name, nowString()); r != nil {
		return budgetCharge{}, errRefused(r)
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

// errRefused is the real server's answer to a budget's refusal.
func errRefused(r *disruption.Refusal) *kube.StatusError {
	switch r.Why {
	case disruption.Busy:
		return errBudgetBusy(r.Budget)
	case disruption.Forbidden:
		return errBudgetForbidden(r.Budget, r.Message)
	}
	return errBudget(r.Message)
}

// errBudgetBusy is the 429 of a budget whose status is behind its spec
// (or of an unhealthy pod that changed while it was being evicted): come
// back in 10 seconds.
func errBudgetBusy(budget string) *kube.StatusError {
	err := errBudget(fmt.Sprintf("The disruption budget %s is still being processed by the server.", budget))
	err.RetryAfter = budgetRetryAfter
	return err
}

// errBudget is a 429 whose one cause, of type DisruptionBudget, is msg.
func errBudget(msg string) *kube.StatusError {
	return statusError(http.StatusTooManyRequests, kube.ReasonTooManyRequests,
		"Cannot evict pod as it would violate the pod's disruption budget.",
		&kube.StatusDetails{Causes: []kube.StatusCause{{Type: "DisruptionBudget", Message: msg}}})
}

// errBudgetForbidden is the 403 of a budget in a state no eviction may
// pass; the real server names the resource in the singular.
func errBudgetForbidden(budget, why string) *kube.StatusError {
	return statusError(http.StatusForbidden, kube.ReasonForbidden,
		fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: %s", budget, why),
		&kube.StatusDetails{Name: budget, Group: "policy", Kind: "poddisruptionbudget"})
}
