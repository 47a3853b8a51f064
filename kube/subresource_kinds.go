// SPDX-License-Identifier: Apache-2.0

package kube

// Scale is autoscaling/v1 Scale, what the scale subresource of a
// Deployment, a StatefulSet, a ReplicaSet or a custom resource whose CRD
// declares subresources.scale reads and writes:
// c.SubResource("scale").Get(ctx, obj, &scale). Its name, namespace, uid
// and resourceVersion are the object's; a write changes the object's
// spec replicas only.
type Scale struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       ScaleSpec   `json:"spec"`
	Status     ScaleStatus `json:"status,omitzero"`
}

// ScaleSpec is the desired number of replicas. Replicas is always sent,
// so that a Scale to zero says zero.
type ScaleSpec struct {
	Replicas int32 `json:"replicas"`
}

// ScaleStatus is the observed number of replicas and the label selector
// of the pods, in its string form ("app=web").
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// GroupVersionKind implements [Object].
func (*Scale) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
}

// Eviction is policy/v1 Eviction, the body of a Pod's eviction
// subresource (kubectl drain): c.SubResource("eviction").Create(ctx, pod,
// &kube.Eviction{}) deletes the pod as DeleteOptions says, unless a
// PodDisruptionBudget forbids it for now (429 TooManyRequests,
// [IsTooManyRequests]). Its name and namespace are the pod's: left
// empty, they are filled from the pod when it is sent.
type Eviction struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	// DeleteOptions refine the deletion of the pod (preconditions, grace
	// period); nil deletes it as a plain delete would.
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty"`
}

// GroupVersionKind implements [Object].
func (*Eviction) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}
}

// holdsAll says Scale declares every field of autoscaling/v1 Scale (see
// [Client.Update]).
func (*Scale) holdsAll() {}
