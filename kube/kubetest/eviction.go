// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/deleteopts"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/disruption"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// This file serves pods/eviction (kubectl drain) as kube-apiserver 1.36.3
// serves it: a POST of a policy/v1 Eviction whose name is the pod's
//
//   - evicts a pod that is Pending, Succeeded, Failed or being deleted
//     whatever budgets cover it;
//   - else finds the PodDisruptionBudgets covering the pod (budget.go):
//     none lets it go, more than one is a 500, and the one there is
//     charges the eviction (status.disruptionsAllowed decremented, the
//     pod recorded in status.disruptedPods) or refuses it with 429 (a
//     budget whose status.observedGeneration is behind its generation,
//     with Retry-After: 10; one that allows no disruption, without) or
//     403; an unready pod is let go uncharged when the budget's
//     unhealthyPodEvictionPolicy is AlwaysAllow or its currentHealthy
//     reaches a desiredHealthy above zero;
//   - then adds the pod's DisruptionTarget condition (reason
//     EvictionByEvictionAPI; no managedFields entry records it), deletes
//     the pod with the Eviction's deleteOptions and answers 201 with a
//     Success Status.
//
// The delete's preconditions are checked after the budget's charge, as
// the real server checks them, so a stale one leaves the budget charged.
// A dry run (?dryRun=All, or in the deleteOptions) checks the budget and
// changes nothing. Other verbs answer 405. No disruption controller
// runs: a budget's status is what clients write (see budget.go).

// isEviction reports whether the call is to pods/eviction.
func isEviction(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "pods" && info.Subresource == "eviction"
}

// evictionJSON turns a protobuf Eviction body into JSON.
func evictionJSON(body []byte) ([]byte, *kube.StatusError) {
	js, err := protobuf.ToJSON(body)
	if err != nil {
		return nil, apierr.BadRequest("error decoding Eviction: " + err.Error())
	}
	return js, nil
}

// serveEviction answers a POST of pods/eviction.
func (s *Server) serveEviction(c *call) {
	body, err := media.ReadBody(c.r)
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	if mt, _ := media.BodyType(c.r); mt == protobuf.MediaType { // client-go's typed client sends protobuf
		if body, err = evictionJSON(body); err != nil {
			apierr.Write(c.w, err)
			return
		}
	}
	opts, invalid := disruption.DecodeEviction(body, c.info.Name, c.info.Namespace)
	if invalid != "" {
		apierr.Write(c.w, apierr.BadRequest(invalid))
		return
	}
	if opts, err = s.admitEviction(c, body, opts); err != nil {
		apierr.Write(c.w, err)
		return
	}
	wr := c.write()
	wr.dryRun = c.dryRun || slices.Contains(opts.DryRun, "All")
	s.withLock(func() {
		prev := c.col.objects[c.key()]
		if prev == nil {
			err = apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name)
			return
		}
		o := mustDecode(prev.raw)
		var charge budgetCharge
		if !budgetIgnores(prev, o) {
			if charge, err = s.chargeBudgetLocked(wr, prev, o); err != nil {
				return
			}
		}
		if err = checkPreconditions(c.res, c.info.Name, prev, opts); err != nil {
			// The real server deletes an unready pod a budget lets go
			// on the condition that it is unchanged, and answers the
			// conflict as the budget's 429 unless the client set a
			// resourceVersion precondition itself.
			if charge.unhealthy && (opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil) {
				err = disruption.BusyStatus(charge.budget)
			}
			return
		}
		if wr.dryRun {
			return
		}
		disruption.SetDisruptionTarget(o, nowString())
		st := *wr
		st.sub = "status"
		var up updateResult
		// The real server writes the condition past its field
		// manager: managedFields do not change.
		if up, err = s.updateLocked(&st, o, func(_, _, _ obj, _ string) {}); err != nil {
			return
		}
		_, _, err = s.deleteLocked(wr, up.rec)
	})
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	apierr.WriteJSON(c.w, http.StatusCreated, encode.Status(&kube.Status{Status: "Success", Code: http.StatusCreated}))
}

// checkPreconditions refuses a delete whose preconditions prev does not
// meet (deleteopts.Precondition).
func checkPreconditions(res *resource, name string, prev *record, opts *protobuf.DeleteOptions) *kube.StatusError {
	if msg := deleteopts.Precondition(opts, prev.uid, formatRV(prev.rv)); msg != "" {
		return errPrecondition(res, name, msg)
	}
	return nil
}
