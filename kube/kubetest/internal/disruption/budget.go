// SPDX-License-Identifier: Apache-2.0

package disruption

import (
	"fmt"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// MaxDisruptedPods is the most entries status.disruptedPods may hold
// before the eviction of a pod the budget guards is forbidden.
const MaxDisruptedPods = 2000

// Refusal is why a budget refuses an eviction.
type Refusal struct {
	Budget  string // the budget's name
	Why     Reason
	Message string // the cause (Exhausted) or the reason (Forbidden); "" for Busy
}

// Reason is the kind of a [Refusal], which names the real server's
// answer.
type Reason uint8

const (
	Busy      Reason = iota // status behind the spec: 429, retry in 10 seconds
	Exhausted               // no disruption allowed: 429
	Forbidden               // a state no eviction may pass: 403
)

// PodReady reports whether the pod's Ready condition is True: a ready
// pod counts as healthy for its budget.
func PodReady(o map[string]any) bool {
	conds, _ := unstructured.Child(o, "status", false)["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(obj); unstructured.String(m, "type") == "Ready" {
			return unstructured.String(m, "status") == "True"
		}
	}
	return false
}

// Unguarded reports whether no budget guards the pod o: one that is
// Pending, Succeeded or Failed is evicted whatever the budgets covering
// it say (as is one being deleted, which the server knows).
func Unguarded(o map[string]any) bool {
	switch unstructured.String(unstructured.Child(o, "status", false), "phase") {
	case "Pending", "Succeeded", "Failed":
		return true
	}
	return false
}

// LetsUnhealthyGo reports whether the budget b lets the pod o go without
// a charge: o is not ready, and b's unhealthyPodEvictionPolicy is
// AlwaysAllow or its currentHealthy reaches a desiredHealthy above zero.
func LetsUnhealthyGo(b, o map[string]any) bool {
	if PodReady(o) {
		return false
	}
	spec, st := unstructured.Child(b, "spec", false), unstructured.Child(b, "status", false)
	desired, _ := unstructured.IntegerValue(st["desiredHealthy"])
	current, _ := unstructured.IntegerValue(st["currentHealthy"])
	return unstructured.String(spec, "unhealthyPodEvictionPolicy") == "AlwaysAllow" || (desired > 0 && current >= desired)
}

// Selects reports whether the budget b's spec.selector matches
// labels. A missing selector matches nothing, an empty one everything,
// an invalid one nothing.
func Selects(b map[string]any, labels map[string]string) bool {
	sel, ok := unstructured.Child(b, "spec", false)["selector"]
	if !ok || sel == nil {
		return false
	}
	s, ok := scale.LabelSelector(sel)
	return ok && s.Matches(labels)
}

// Charge charges the eviction of pod to the budget b, changing
// b's status in place: one disruption fewer allowed, the pod recorded in
// disruptedPods at now, and the DisruptionAllowed condition False when
// none is left. It refuses (a 429) a budget whose status is behind its
// generation or that allows no disruption, and (a 403) one whose
// disruptedPods holds more than MaxDisruptedPods entries; a refused b
// keeps its status values (an empty status is made when it has none).
func Charge(b map[string]any, pod, now string) *Refusal {
	meta, st := unstructured.Metadata(b), unstructured.Child(b, "status", true)
	name := unstructured.String(meta, "name")
	gen, _ := unstructured.IntegerValue(meta["generation"])
	observed, _ := unstructured.IntegerValue(st["observedGeneration"])
	allowed, _ := unstructured.IntegerValue(st["disruptionsAllowed"])
	disrupted, _ := st["disruptedPods"].(obj)
	switch {
	case observed < gen:
		return &Refusal{Budget: name, Why: Busy}
	case allowed < 0:
		return &Refusal{Budget: name, Why: Forbidden, Message: "pdb disruptions allowed is negative"}
	case len(disrupted) > MaxDisruptedPods:
		return &Refusal{Budget: name, Why: Forbidden, Message: "DisruptedPods map too big - too many evictions not confirmed by PDB controller"}
	case allowed == 0:
		return &Refusal{Budget: name, Why: Exhausted, Message: ExhaustedMessage(name, st)}
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

// ExhaustedMessage is the cause of the 429 of a budget that allows no
// disruption, chosen from the budget's status st as the real server
// does.
func ExhaustedMessage(budget string, st map[string]any) string {
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
	return msg
}
