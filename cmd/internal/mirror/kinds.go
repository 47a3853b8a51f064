// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

// kind is a kind the mirror copies. The cache holds objects of it as
// metadata only (kube.PartialObjectMetadata): annotations, labels and
// finalizers are all the mirror decides on, and holding every Secret's data
// in memory would cost far more than reading a source when it changes.
type kind struct {
	gvk kube.GroupVersionKind
}

// mirroredKinds returns the kinds the mirror copies.
func mirroredKinds() []kind {
	return []kind{
		{gvk: kube.GroupVersionKind{Version: "v1", Kind: "Secret"}},
		{gvk: kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}},
	}
}

// name is the kind's name: "Secret", the value of [LabelOfKind].
func (k kind) name() string { return k.gvk.Kind }

// lower is the kind's name in lower case, as sentences use it ("secret").
func (k kind) lower() string { return strings.ToLower(k.gvk.Kind) }

// meta returns an empty metadata-only object of the kind: what names the
// kind and the Go type to the cache.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (k kind) meta() *kube.PartialObjectMetadata {
	o := &kube.PartialObjectMetadata{}
	o.SetGroupVersionKind(k.gvk)
	return o
}

// metaList returns an empty metadata-only list of the kind.
func (k kind) metaList() *kube.List[kube.PartialObjectMetadata] {
	l := &kube.List[kube.PartialObjectMetadata]{}
	l.SetGroupVersionKind(kube.GroupVersionKind{Version: k.gvk.Version, Group: k.gvk.Group, Kind: k.gvk.Kind + "List"})
	return l
}

// full returns an empty object of the kind that holds everything: what
// the source is read into before it is copied.
func (k kind) full() *kube.Unstructured {
	o := &kube.Unstructured{}
	o.SetGroupVersionKind(k.gvk)
	return o
}

// copyOf returns the apply configuration of the copy of src in namespace
// ns: the source's content (everything but metadata: data, binaryData,
// type, immutable) under the same name, with the source's labels and the
// labels that say whose copy it is. Annotations are not copied: they
// would carry the mirror-to annotations and tools' bookkeeping.
func (k kind) copyOf(src *kube.Unstructured, ns string) *kube.Unstructured {
	labels := make(map[string]string, len(src.Labels)+3)
	for key, v := range src.Labels {
		labels[key] = v
	}
	labels[LabelOfNamespace] = src.Namespace
	labels[LabelOfName] = src.Name
	labels[LabelOfKind] = k.name()
	c := &kube.Unstructured{
		ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: src.Name, Labels: labels},
		Content:    src.Content,
	}
	c.SetGroupVersionKind(k.gvk)
	return c
}

// namespaceMeta names the Namespace kind to the cache, metadata only.
func namespaceMeta() *kube.PartialObjectMetadata {
	o := &kube.PartialObjectMetadata{}
	o.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	return o
}

// namespaceMetaList is an empty metadata-only list of Namespaces.
func namespaceMetaList() *kube.List[kube.PartialObjectMetadata] {
	l := &kube.List[kube.PartialObjectMetadata]{}
	l.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	return l
}
