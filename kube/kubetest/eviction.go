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
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// This file serves pods/eviction (kubectl drain) as kube-apiserver 1.36.3
// serves it: a POST of a policy/v1 Eviction whose name is the pod's is
// admitted by the webhooks (admit.go), and then charged to the
// PodDisruptionBudget covering the pod and turned into the pod's
// deletion by disruption.Evict, given the store by evictionStore; the
// answer is 201 with a Success Status. Other verbs answer 405. No
// disruption controller runs: a budget's status is what clients write.

// isEviction reports whether the call is to pods/eviction.
func isEviction(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "pods" && info.Subresource == "eviction"
}

// serveEviction answers a POST of pods/eviction.
func (s *Server) serveEviction(c *call) {
	body, opts, err := disruption.ReadEviction(c.r, c.info.Name, c.info.Namespace)
	if err != nil {
		apierr.Write(c.w, err)
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
		pod := disruption.Pod{Object: mustDecode(prev.raw), Namespace: prev.namespace, Name: prev.name,
			Labels: prev.labels, Deleting: prev.deleting, Precondition: checkPreconditions(c.res, c.info.Name, prev, opts)}
		err = disruption.Evict(evictionStore{s, wr}, pod, opts, wr.dryRun, nowString())
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

// evictionStore is the server's store as an eviction of the pod wr
// deletes sees it (disruption.Store). Its methods are called with s.mu
// held.
type evictionStore struct {
	s  *Server
	wr *write
}

// budgets returns the served PodDisruptionBudgets and their collection.
func (e evictionStore) budgets() (*resource, *collection) {
	res := e.s.reg.Lookup("policy", "v1", "poddisruptionbudgets")
	return res, e.s.cols[res.colKey()]
}

func (e evictionStore) Budgets(ns string) []disruption.Budget {
	_, col := e.budgets()
	var out []disruption.Budget
	for _, r := range col.objects {
		if r.namespace == ns {
			out = append(out, disruption.Budget{Name: r.name, Object: mustDecode(r.raw)})
		}
	}
	return out
}

func (e evictionStore) WriteBudgetStatus(name string, b map[string]any) *kube.StatusError {
	res, col := e.budgets()
	bw := &write{res: res, col: col, namespace: e.wr.namespace, name: name, sub: "status", manager: "kube-apiserver"}
	_, err := e.s.updateLocked(bw, b, nil)
	return err
}

func (e evictionStore) Evict(pod map[string]any) *kube.StatusError {
	st := *e.wr
	st.sub = "status"
	// The real server writes the condition past its field manager:
	// managedFields do not change.
	up, err := e.s.updateLocked(&st, pod, func(_, _, _ obj, _ string) {})
	if err != nil {
		return err
	}
	_, _, err = e.s.deleteLocked(e.wr, up.rec)
	return err
}
