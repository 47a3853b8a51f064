// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the PodDisruptionBudget half of pods/eviction: which pods
// a budget guards, which budgets cover a pod, and the charge an eviction
// makes on the one budget that covers it, as kube-apiserver 1.36.3 does.
// No disruption controller runs, so a budget's status is what clients
// wrote through its status subresource: a budget created and never given
// a status.observedGeneration refuses every eviction it guards, as it
// does on a real server without kube-controller-manager's disruption
// controller.

// maxDisruptedPods is the most entries status.disruptedPods may hold
// before the eviction of a pod the budget guards is forbidden.
const maxDisruptedPods = 2000

// budgetRetryAfter is the Retry-After of the 429 a budget not yet
// processed causes; the 429 of a budget that allows no disruption says
// no time.
const budgetRetryAfter = 10 * time.Second

// budgetIgnores reports whether a budget leaves pod alone: a pod that is
// Pending, Succeeded or Failed, or being deleted, is evicted whatever
// the budgets covering it say.
func budgetIgnores(pod *record, o obj) bool {
	switch unstructured.String(unstructured.Child(o, "status", false), "phase") {
	case "Pending", "Succeeded", "Failed":
		return true
	}
	return pod.deleting
}

// podReady reports whether the pod's Ready condition is True: a ready
// pod counts as healthy for its budget.
func podReady(o obj) bool {
	conds, _ := unstructured.Child(o, "status", false)["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(obj); unstructured.String(m, "type") == "Ready" {
			return unstructured.String(m, "status") == "True"
		}
	}
	return false
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
		if d := mustDecode(r.raw); budgetSelects(d, pod.labels) {
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
	if !podReady(o) {
		spec, st := unstructured.Child(b, "spec", false), unstructured.Child(b, "status", false)
		desired, _ := unstructured.IntegerValue(st["desiredHealthy"])
		current, _ := unstructured.IntegerValue(st["currentHealthy"])
		if unstructured.String(spec, "unhealthyPodEvictionPolicy") == "AlwaysAllow" || (desired > 0 && current >= desired) {
			charge.unhealthy = true
			return charge, nil
		}
	}
	if err := decrementBudget(b, pod.name, nowString()); err != nil {
		return budgetCharge{}, err
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

// budgetSelects reports whether the budget b's spec.selector matches
// labels. A missing selector matches nothing, an empty one everything,
// an invalid one nothing.
func budgetSelects(b obj, labels map[string]string) bool {
	sel, ok := unstructured.Child(b, "spec", false)["selector"]
	if !ok || sel == nil {
		return false
	}
	s, ok := scale.LabelSelector(sel)
	return ok && s.Matches(labels)
}

// decrementBudget charges the eviction of pod to the budget b, changing
// b's status in place: one disruption fewer allowed, the pod recorded in
// disruptedPods at now, and the DisruptionAllowed condition False when
// none is left. It refuses with 429 a budget whose status is behind its
// generation or that allows no disruption, and with 403 one whose
// disruptedPods holds more than maxDisruptedPods entries.
func decrementBudget(b obj, pod, now string) *kube.StatusError {
	meta, st := unstructured.Metadata(b), unstructured.Child(b, "status", true)
	name := unstructured.String(meta, "name")
	gen, _ := unstructured.IntegerValue(meta["generation"])
	observed, _ := unstructured.IntegerValue(st["observedGeneration"])
	allowed, _ := unstructured.IntegerValue(st["disruptionsAllowed"])
	disrupted, _ := st["disruptedPods"].(obj)
	switch {
	case observed < gen:
		return errBudgetBusy(name)
	case allowed < 0:
		return errBudgetForbidden(name, "pdb disruptions allowed is negative")
	case len(disrupted) > maxDisruptedPods:
		return errBudgetForbidden(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
	case allowed == 0:
		return errBudgetExhausted(name, st)
	}
	st["disruptionsAllowed"] = allowed - 1
	if allowed == 1 {
		setDisruptionAllowedFalse(st, observed, now)
	}
	if disrupted == nil {
		disrupted = obj{}
		st["disruptedPods"] = disrupted
	}
	disrupted[pod] = now
	return nil
}

// setDisruptionAllowedFalse sets the budget status st's DisruptionAllowed
// condition to False for InsufficientPods, its transition time now
// unless it was False already.
func setDisruptionAllowedFalse(st obj, observed int64, now string) {
	cond := obj{"type": "DisruptionAllowed", "status": "False", "lastTransitionTime": now,
		"reason": "InsufficientPods", "message": ""}
	if observed != 0 {
		cond["observedGeneration"] = observed
	}
	conds, _ := st["conditions"].([]any)
	for i, c := range conds {
		if m, _ := c.(obj); unstructured.String(m, "type") == "DisruptionAllowed" {
			if unstructured.String(m, "status") == "False" {
				cond["lastTransitionTime"] = m["lastTransitionTime"]
			}
			conds[i] = cond
			return
		}
	}
	st["conditions"] = append(conds, cond)
}

// errBudgetBusy is the 429 of a budget whose status is behind its spec
// (or of an unhealthy pod that changed while it was being evicted): come
// back in 10 seconds.
func errBudgetBusy(budget string) *kube.StatusError {
	err := errBudget(fmt.Sprintf("The disruption budget %s is still being processed by the server.", budget))
	err.RetryAfter = budgetRetryAfter
	return err
}

// errBudgetExhausted is the 429 of a budget that allows no disruption,
// its cause chosen from the budget's status st as the real server does.
func errBudgetExhausted(budget string, st obj) *kube.StatusError {
	var cond obj
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(obj); unstructured.String(m, "type") == "DisruptionAllowed" {
			cond = m
			break
		}
	}
	falseWhy := cond != nil && unstructured.String(cond, "status") == "False" && unstructured.String(cond, "message") != ""
	reason, message := unstructured.String(cond, "reason"), unstructured.String(cond, "message")
	desired, _ := unstructured.IntegerValue(st["desiredHealthy"])
	current, _ := unstructured.IntegerValue(st["currentHealthy"])
	var msg string
	switch {
	case falseWhy && reason == "SyncFailed":
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", budget, message)
	case current <= desired:
		msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", budget, desired, current)
	case falseWhy:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", budget, reason, message)
	default:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", budget)
	}
	return errBudget(msg)
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
