// SPDX-License-Identifier: Apache-2.0

package kube

// The built-in kinds the project itself needs, with the fields it uses.
// Declare your own types for anything else; see [Object].

// Namespace is a core/v1 Namespace.
type Namespace struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Status     NamespaceStatus `json:"status,omitzero"`
}

// NamespaceStatus holds the phase: "Active" or "Terminating".
type NamespaceStatus struct {
	Phase string `json:"phase,omitempty"`
}

// GroupVersionKind implements [Object].
func (*Namespace) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Version: "v1", Kind: "Namespace"}
}

// ConfigMap is a core/v1 ConfigMap.
type ConfigMap struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// GroupVersionKind implements [Object].
func (*ConfigMap) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// Secret is a core/v1 Secret. Data values are the decoded bytes; the wire
// carries them in base64.
type Secret struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Type       string            `json:"type,omitempty"`
	Data       map[string][]byte `json:"data,omitempty"`
	StringData map[string]string `json:"stringData,omitempty"`
}

// GroupVersionKind implements [Object].
func (*Secret) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Version: "v1", Kind: "Secret"}
}

// Lease is a coordination.k8s.io/v1 Lease, the lock of leader election.
type Lease struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       LeaseSpec `json:"spec"`
}

// LeaseSpec is the lock record. Times have microsecond precision on the wire.
type LeaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty"`
	// Strategy and PreferredHolder belong to coordinated leader election;
	// kubeloop does not use them but keeps them, so that an update does not
	// clear what another component wrote.
	Strategy        *string `json:"strategy,omitempty"`
	PreferredHolder *string `json:"preferredHolder,omitempty"`
}

// GroupVersionKind implements [Object].
func (*Lease) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
}

// Event is an events.k8s.io/v1 Event.
type Event struct {
	TypeMeta
	ObjectMeta          `json:"metadata"`
	EventTime           MicroTime        `json:"eventTime"`
	Series              *EventSeries     `json:"series,omitempty"`
	ReportingController string           `json:"reportingController,omitempty"`
	ReportingInstance   string           `json:"reportingInstance,omitempty"`
	Action              string           `json:"action,omitempty"`
	Reason              string           `json:"reason,omitempty"`
	Regarding           ObjectReference  `json:"regarding"`
	Related             *ObjectReference `json:"related,omitempty"`
	Note                string           `json:"note,omitempty"`
	// Type is "Normal" or "Warning".
	Type string `json:"type,omitempty"`
}

// EventSeries counts repeats of an event.
type EventSeries struct {
	Count            int32     `json:"count"`
	LastObservedTime MicroTime `json:"lastObservedTime"`
}

// GroupVersionKind implements [Object].
func (*Event) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
}

// ObjectReference points at an object of any kind.
type ObjectReference struct {
	APIVersion      string `json:"apiVersion,omitempty"`
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// The kinds above that this package declares in full (as of Kubernetes
// 1.36): an Update of one sends it as it is, without reading the stored
// object first (see [Client.Update]).
func (*ConfigMap) holdsAll() {}
func (*Secret) holdsAll()    {}
func (*Lease) holdsAll()     {}
