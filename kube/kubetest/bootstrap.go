// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/bootstrap"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// bootstrap creates what a fresh kube-apiserver holds before anyone writes
// to it (internal/bootstrap), written by manager "kube-apiserver".
func (s *Server) bootstrap() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bootstrap.Objects(time.Now(), strategy.NewUID()) {
		res := s.reg.Lookup(b.Group, "v1", b.Plural)
		ns := unstructured.String(unstructured.Metadata(b.Object), "namespace")
		wr := &write{res: res, col: s.cols[res.colKey()], namespace: ns, manager: "kube-apiserver"}
		if _, err := s.createLocked(wr, b.Object); err != nil {
			panic("kubetest: bootstrap " + b.Plural + ": " + err.Error())
		}
	}
}
