// SPDX-License-Identifier: Apache-2.0

package disruption

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// Store is the server's store as an eviction sees it. Its methods are
// called with the server's lock held, inside [Evict].
type Store interface {
	// Budgets returns decoded copies of the PodDisruptionBudgets of
	// namespace ns, each with its name. It costs O(budgets).
	Budgets(ns string) []Budget
	// WriteBudgetStatus writes b, a changed copy of the budget name in
	// the pod's namespace, as kube-apiserver's update of its status.
	WriteBudgetStatus(name string, b map[string]any) *kube.StatusError
	// Evict writes pod, the pod's decoded copy changed, past its field
	// manager (as a status write whose managedFields do not change), and
	// then deletes it with the eviction's options.
	Evict(pod map[string]any) *kube.StatusError
}

// Budget is a stored PodDisruptionBudget: its name and a decoded copy.
type Budget struct {
	Name   string
	Object map[string]any
}

// Pod is the pod an eviction is for.
type Pod struct {
	// Object is a decoded copy, which Evict changes.
	Object          map[string]any
	Namespace, Name string
	Labels          map[string]string
	// Deleting says metadata.deletionTimestamp is set.
	Deleting bool
	// Precondition is the delete's answer to the pod when the eviction's
	// preconditions do not hold; nil when they do.
	Precondition *kube.StatusError
}

// charge is what a budget allows an eviction.
type charge struct {
	// budget names the one budget covering the pod, "" for none.
	budget string
	// unhealthy says the pod is evicted as an unhealthy pod the budget
	// lets go without a charge: its deletion must not race the pod
	// becoming ready, so a conflict of the deletion answers the budget's
	// 429.
	unhealthy bool
}

// Evict is pods/eviction of pod, with the Eviction's delete options, at
// now (the API's time format), as kube-apiserver 1.36.3 does it: a pod
// no budget guards ([Unguarded], or deleting) is evicted whatever the
// budgets say; else the one budget covering it is charged (or refuses,
// 429 or 403; more than one is a 500). The delete's preconditions are
// checked after the charge, as the real server checks them, so a stale
// one leaves the budget charged. Then the pod gets its DisruptionTarget
// condition and is deleted. A dry run checks and changes nothing.
func Evict(st Store, pod Pod, opts *protobuf.DeleteOptions, dryRun bool, now string) *kube.StatusError {
	var c charge
	if !pod.Deleting && !Unguarded(pod.Object) {
		var err *kube.StatusError
		if c, err = chargeBudget(st, pod, dryRun, now); err != nil {
			return err
		}
	}
	if pod.Precondition != nil {
		// The real server deletes an unready pod a budget lets go on the
		// condition that it is unchanged, and answers the conflict as the
		// budget's 429 unless the client set a resourceVersion
		// precondition itself.
		if c.unhealthy && (opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil) {
			return BusyStatus(c.budget)
		}
		return pod.Precondition
	}
	if dryRun {
		return nil
	}
	SetDisruptionTarget(pod.Object, now)
	return st.Evict(pod.Object)
}

// chargeBudget finds the budgets covering pod (its namespace's, whose
// selector matches its labels; a budget without a selector covers
// nothing) and charges the eviction to the one there is: it decrements
// status.disruptionsAllowed and records the pod in status.disruptedPods,
// a status write by kube-apiserver, unless dryRun. More than one budget
// is the real server's 500; a budget that cannot allow it answers 429 or
// 403.
func chargeBudget(st Store, pod Pod, dryRun bool, now string) (charge, *kube.StatusError) {
	var covering []Budget
	for _, b := range st.Budgets(pod.Namespace) {
		if Selects(b.Object, pod.Labels) {
			covering = append(covering, b)
		}
	}
	switch len(covering) {
	case 0:
		return charge{}, nil
	case 1:
	default:
		return charge{}, apierr.New(http.StatusInternalServerError, "",
			"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", nil)
	}
	b := covering[0]
	c := charge{budget: b.Name}
	if LetsUnhealthyGo(b.Object, pod.Object) {
		c.unhealthy = true
		return c, nil
	}
	if r := Charge(b.Object, pod.Name, now); r != nil {
		return charge{}, r.Status()
	}
	if dryRun {
		return c, nil
	}
	if err := st.WriteBudgetStatus(b.Name, b.Object); err != nil {
		return charge{}, err
	}
	return c, nil
}
