// SPDX-License-Identifier: Apache-2.0

package table

import "time"

// This file holds the column definitions of the built-in kinds, as
// kube-apiserver 1.36 serves them in Tables (names, types, formats,
// descriptions and priorities; priority 1 columns are what kubectl shows
// with -o wide only), and picks the printer of a resource: a built-in
// printer, a CustomResourceDefinition's printer columns, or the default
// convertor (name and creation time) of the kinds the real server has no
// printer for (LimitRanges, and CustomResourceDefinitions before 1.37). The descriptions
// are the API's field documentation, which the real server copies into
// the columns.

// Column is one column definition, as the Table carries it.
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// RowCondition is a condition of a row (Completed for finished pods).
type RowCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Printer turns the objects of one resource into rows.
type Printer struct {
	Columns []Column
	// Cells returns the cells of o (one per column) and the conditions of
	// its row; now is when the answer is written.
	Cells func(o obj, now time.Time) ([]any, []RowCondition)
	// NullRows says an empty list has "rows": null rather than [], as the
	// real server's default convertor writes it.
	NullRows bool
}

// BuiltinPrinter returns the printer of the built-in kind of a group and
// resource ("apps/deployments"), or the default one when custom is true (a
// custom resource without its own printer) or the kind has none.
func BuiltinPrinter(key string, custom bool) *Printer {
	if custom {
		return defaultPrinter
	}
	if p := builtinPrinters[key]; p != nil {
		return p
	}
	if p := workloadPrinters[key]; p != nil {
		return p
	}
	return defaultPrinter
}

// col is a column definition.
func col(name, typ, desc string) Column {
	return Column{Name: name, Type: typ, Description: desc}
}

// nameCol is the Name column every printer starts with.
var nameCol = Column{Name: "Name", Type: "string", Format: "name", Description: descName}

// wide marks c as an -o wide column.
func wide(c Column) Column { c.Priority = 1; return c }

var ageCol = col("Age", "string", descCreated)

const (
	descContainers = "Names of each container in the template."
	descImages     = "Images referenced by each container in the template."
)

// builtinPrinters are the printers of the built-in kinds by group and
// resource.
var builtinPrinters = map[string]*Printer{
	"/namespaces": {Columns: []Column{nameCol, col("Status", "string", "The status of the namespace"), ageCol},
		Cells: cellsNamespace},
	"/configmaps": {Columns: []Column{nameCol, col("Data", "string", descConfigMapData), ageCol},
		Cells: cellsConfigMap},
	"/secrets": {Columns: []Column{nameCol, col("Type", "string", descSecretType), col("Data", "string", descSecretData), ageCol},
		Cells: cellsSecret},
	"/serviceaccounts": {Columns: []Column{nameCol, ageCol}, Cells: cellsNameAge},
	"/services": {Columns: []Column{nameCol, col("Type", "string", descServiceType),
		col("Cluster-IP", "string", descClusterIP), col("External-IP", "string", descExternalIPs),
		col("Port(s)", "string", descPorts), ageCol, wide(col("Selector", "string", descServiceSelector))},
		Cells: cellsService},
	"/pods": {Columns: []Column{nameCol,
		col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
		col("Status", "string", "The aggregate status of the containers in this pod."),
		col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
		ageCol, wide(col("IP", "string", descPodIP)), wide(col("Node", "string", descNodeName)),
		wide(col("Nominated Node", "string", descNominated)), wide(col("Readiness Gates", "string", descReadinessGates))},
		Cells: cellsPod},
	"/events":              eventPrinter,
	"events.k8s.io/events": eventPrinter,
	"apps/deployments": {Columns: []Column{nameCol,
		col("Ready", "string", "Number of the pod with ready state"), col("Up-to-date", "string", descUpdated),
		col("Available", "string", descAvailable), ageCol, wide(col("Containers", "string", descContainers)),
		wide(col("Images", "string", descImages)), wide(col("Selector", "string", descDeploymentSelector))},
		Cells: cellsDeployment},
	"coordination.k8s.io/leases": {Columns: []Column{nameCol, col("Holder", "string", descHolder), ageCol},
		Cells: cellsLease},
	"apiextensions.k8s.io/customresourcedefinitions": crdPrinter,
	"/resourcequotas": {Columns: []Column{nameCol,
		col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
		col("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		ageCol},
		Cells: cellsResourceQuota},
}

// eventPrinter serves core Events and events.k8s.io Events alike: the real
// server stores them as one kind.
var eventPrinter = &Printer{Columns: []Column{
	col("Last Seen", "string", descEventLast), col("Type", "string", descEventType),
	col("Reason", "string", descEventReason), col("Object", "string", descEventObject),
	wide(col("Subobject", "string", descEventFieldPath)), wide(col("Source", "string", descEventSource)),
	col("Message", "string", descEventMessage), wide(col("First Seen", "string", descEventFirst)),
	wide(col("Count", "string", descEventCount)), wide(Column{Name: "Name", Type: "string", Format: "name", Description: descName}),
}, Cells: cellsEvent}

// defaultPrinter is the real server's default convertor.
var defaultPrinter = &Printer{Columns: []Column{nameCol, col("Created At", "date", descCreated)},
	Cells: cellsDefault, NullRows: true}

const (
	descName               = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	descCreated            = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	descPodIP              = "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
	descNominated          = "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled."
	descNodeName           = "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
	descReadinessGates     = "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
	descServiceType        = "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
	descClusterIP          = "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
	descExternalIPs        = "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system."
	descPorts              = "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
	descServiceSelector    = "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"
	descEventLast          = "The time at which the most recent occurrence of this event was recorded."
	descEventType          = "Type of this event (Normal, Warning), new types could be added in the future"
	descEventReason        = "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."
	descEventObject        = "The object that this event is about."
	descEventFieldPath     = "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object."
	descEventSource        = "The component reporting this event. Should be a short machine understandable string."
	descEventMessage       = "A human-readable description of the status of this operation."
	descEventFirst         = "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"
	descEventCount         = "The number of times this event has occurred."
	descSecretType         = "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
	descSecretData         = "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
	descConfigMapData      = "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."
	descUpdated            = "Total number of non-terminating pods targeted by this deployment that have the desired template spec."
	descAvailable          = "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment."
	descDeploymentSelector = "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels."
	descHolder             = "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."
)
