// SPDX-License-Identifier: Apache-2.0

package controllers

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// namespaces is the key of the namespaces' collection.
const namespaces = "/namespaces"

// nsStore is the server's store as the namespace controller sees it
// (nscontroller.Store).
type nsStore struct{ st Store }

func (n nsStore) Namespace(name string) (map[string]any, bool) {
	ref := gc.ObjectRef{Col: namespaces, Key: name}
	ns, ok := n.st.Object(ref)
	if !ok {
		return nil, false
	}
	return n.st.Decode(ref), ns.Deleting
}

func (n nsStore) Collections() (keys, names []string) { return n.st.Namespaced() }

func (n nsStore) Update(name, sub string, o map[string]any) {
	ref := gc.ObjectRef{Col: namespaces, Key: name}
	if _, ok := n.st.Object(ref); ok {
		n.st.Update(ref, sub, o)
	}
}

// DeleteContent deletes, in the background, the objects of the
// collection col in namespace ns not marked deleting yet, and answers how
// many are left, counting the finalizers they hold into finalizers.
func (n nsStore) DeleteContent(col, ns string, finalizers map[string]int) int {
	prefix := ns + "/"
	var in []gc.ObjectRef
	for _, k := range n.st.Keys(col) {
		if strings.HasPrefix(k, prefix) {
			in = append(in, gc.ObjectRef{Col: col, Key: k})
		}
	}
	for _, ref := range in {
		if o, ok := n.st.Object(ref); ok && !o.Deleting {
			n.st.Delete(ref, "Background")
		}
	}
	left := 0
	for _, ref := range in {
		if _, ok := n.st.Object(ref); !ok {
			continue
		}
		left++
		meta := unstructured.Metadata(n.st.Decode(ref))
		fins, _ := meta["finalizers"].([]any)
		for _, f := range fins {
			if s, ok := f.(string); ok {
				finalizers[s]++
			}
		}
	}
	return left
}
