// SPDX-License-Identifier: Apache-2.0

package disruption

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// RetryAfter is the Retry-After of the 429 a budget not yet
// processed causes; the 429 of a budget that allows no disruption says
// no time.
const RetryAfter = 10 * time.Second

// Status is the real server's answer to the refusal.
func (r *Refusal) Status() *kube.StatusError {
	switch r.Why {
	case Busy:
		return BusyStatus(r.Budget)
	case Forbidden:
		return forbiddenStatus(r.Budget, r.Message)
	}
	return budgetStatus(r.Message)
}

// BusyStatus is the 429 of a budget whose status is behind its spec
// (or of an unhealthy pod that changed while it was being evicted): come
// back in 10 seconds.
func BusyStatus(budget string) *kube.StatusError {
	err := budgetStatus(fmt.Sprintf("The disruption budget %s is still being processed by the server.", budget))
	err.RetryAfter = RetryAfter
	return err
}

// budgetStatus is a 429 whose one cause, of type DisruptionBudget, is msg.
func budgetStatus(msg string) *kube.StatusError {
	err := kube.NewStatusError(http.StatusTooManyRequests, kube.ReasonTooManyRequests,
		"Cannot evict pod as it would violate the pod's disruption budget.")
	err.Status.Details = &kube.StatusDetails{Causes: []kube.StatusCause{{Type: "DisruptionBudget", Message: msg}}}
	return err
}

// forbiddenStatus is the 403 of a budget in a state no eviction may
// pass; the real server names the resource in the singular.
func forbiddenStatus(budget, why string) *kube.StatusError {
	err := kube.NewStatusError(http.StatusForbidden, kube.ReasonForbidden,
		fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: %s", budget, why))
	err.Status.Details = &kube.StatusDetails{Name: budget, Group: "policy", Kind: "poddisruptionbudget"}
	return err
}
