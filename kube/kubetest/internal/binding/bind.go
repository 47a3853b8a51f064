// SPDX-License-Identifier: Apache-2.0

package binding

import (
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Pods is the server's store of pods as [Bind] sees it, for the
// Binding's namespace. Methods ending in Locked are called inside Lock.
type Pods interface {
	// Lock runs fn with the server's lock held.
	Lock(fn func())
	// PodLocked returns a decoded copy of the pod name and whether it is
	// being deleted; nil when there is none.
	PodLocked(name string) (pod map[string]any, deleting bool)
	// WriteLocked stores pod, changed from what PodLocked gave, past its
	// field manager: managedFields and generation do not change.
	WriteLocked(pod map[string]any)
}

// Bind assigns the pod the Binding b names to the node of its target,
// as kube-apiserver 1.36 does: the pod gets spec.nodeName, the Binding's
// annotations and a PodScheduled condition of status True, in one write.
// urlName, when set, is the pod the URL names (pods/NAME/binding), which
// the Binding's name must be (else 400). A pod already assigned or being
// deleted is a 409, a missing one a 404, and a target of another kind
// than Node or without a name a 500 whose message lists the fields, as
// the real handler returns the validation error unwrapped.
func Bind(st Pods, b map[string]any, urlName string) *kube.StatusError {
	meta := unstructured.Metadata(b)
	name := unstructured.String(meta, "name")
	if urlName != "" && name != urlName {
		return apierr.BadRequest("name in URL does not match name in Binding object")
	}
	node, invalid := Target(b)
	if invalid != "" {
		return apierr.New(http.StatusInternalServerError, "", invalid, nil)
	}
	ann, _ := meta["annotations"].(map[string]any)
	var err *kube.StatusError
	st.Lock(func() { err = bindLocked(st, name, node, ann) })
	return err
}

// bindLocked assigns the pod name to node, giving it the Binding's
// annotations (Assign).
func bindLocked(st Pods, name, node string, annotations map[string]any) *kube.StatusError {
	pod, deleting := st.PodLocked(name)
	switch {
	case pod == nil:
		return apierr.NotFound("", "pods", name)
	case deleting:
		return apierr.Conflict("", "pods/binding", name, "pod "+name+" is being deleted, cannot be assigned to a host")
	}
	now := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	if conflict := Assign(pod, name, node, annotations, now); conflict != "" {
		return apierr.Conflict("", "pods/binding", name, conflict)
	}
	st.WriteLocked(pod)
	return nil
}
