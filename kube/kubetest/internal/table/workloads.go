// SPDX-License-Identifier: Apache-2.0

package table

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The printers of the workload kinds beyond Deployments: ReplicaSets,
// StatefulSets, DaemonSets, Jobs and CronJobs, with kube-apiserver 1.36's
// columns and cells.

// wideTemplate are the wide columns of a pod template's owner.
func wideTemplate(selectorDesc string) []Column {
	return []Column{wide(col("Containers", "string", descContainers)), wide(col("Images", "string", descImages)),
		wide(col("Selector", "string", selectorDesc))}
}

const descJobSelector = "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"

// workloadPrinters are the printers of this file, by group and resource.
var workloadPrinters = map[string]*Printer{
	"apps/replicasets": {Columns: append([]Column{nameCol,
		col("Desired", "integer", "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
		col("Current", "integer", "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
		col("Ready", "integer", "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."),
		ageCol}, wideTemplate("Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")...),
		Cells: cellsReplicaSet},
	"apps/statefulsets": {Columns: []Column{nameCol,
		col("Ready", "string", "Number of the pod with ready state"), ageCol,
		wide(col("Containers", "string", descContainers)), wide(col("Images", "string", descImages))},
		Cells: cellsStatefulSet},
	"apps/daemonsets": {Columns: append([]Column{nameCol,
		col("Desired", "integer", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
		col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
		col("Ready", "integer", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition."),
		col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
		col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
		col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
		ageCol}, wideTemplate("A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")...),
		Cells: cellsDaemonSet},
	"batch/jobs": {Columns: append([]Column{nameCol,
		col("Status", "string", "Status of the job."),
		col("Completions", "string", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs."),
		col("Duration", "string", "Time required to complete the job."),
		ageCol}, wideTemplate(descJobSelector)...),
		Cells: cellsJob},
	"batch/cronjobs": {Columns: append([]Column{nameCol,
		col("Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
		col("Timezone", "string", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
		col("Suspend", "boolean", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false."),
		col("Active", "integer", "A list of pointers to currently running jobs."),
		col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled."),
		ageCol}, wideTemplate(descJobSelector)...),
		Cells: cellsCronJob},
	"/replicationcontrollers": {Columns: append([]Column{nameCol,
		col("Desired", "integer", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
		col("Current", "integer", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
		col("Ready", "integer", "The number of ready replicas for this replication controller."),
		ageCol}, wideTemplate("Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")...),
		Cells: cellsReplicationController},
	"apps/controllerrevisions": {Columns: []Column{nameCol, col("Controller", "string", "Controller of the object"),
		col("Revision", "string", "Revision indicates the revision of the state represented by Data."), ageCol},
		Cells: cellsControllerRevision},
	"networking.k8s.io/ingresses": {Columns: []Column{nameCol,
		col("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
		col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
		col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
		col("Ports", "string", "Ports of TLS configurations that open"), ageCol},
		Cells: cellsIngress},
	"/persistentvolumeclaims": {Columns: []Column{nameCol,
		col("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
		col("Volume", "string", "volumeName is the binding reference to the PersistentVolume backing this claim."),
		col("Capacity", "string", "capacity represents the actual resources of the underlying volume."),
		col("Access Modes", "string", "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
		col("StorageClass", "string", "StorageClass of the pvc"),
		col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"), ageCol,
		wide(col("VolumeMode", "string", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec."))},
		Cells: cellsPersistentVolumeClaim},
	"/persistentvolumes": {Columns: []Column{nameCol,
		col("Capacity", "string", "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
		col("Access Modes", "string", "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
		col("Reclaim Policy", "string", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
		col("Status", "string", "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
		col("Claim", "string", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
		col("StorageClass", "string", "StorageClass of the pv"),
		col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
		col("Reason", "string", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI."),
		ageCol,
		wide(col("VolumeMode", "string", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec."))},
		Cells: cellsPersistentVolume},
	"/endpoints": {Columns: []Column{nameCol,
		col("Endpoints", "string", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."),
		ageCol},
		Cells: cellsEndpoints},
}

// containerCells are the names and images of the containers of the pod
// template at spec.template (of o, or of the object at prefix).
func containerCells(o obj, prefix ...string) (names, images string) {
	var n, i []string
	for _, c := range atList(o, append(prefix, "spec", "template", "spec", "containers")...) {
		n = append(n, atStr(c, "name"))
		i = append(i, atStr(c, "image"))
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// formatLabelSelector renders a LabelSelector as the printers' wide
// Selector cell: "<none>" for none or an empty one.
func formatLabelSelector(v any) string {
	switch s := selectorString(v); s {
	case "":
		return "<none>"
	case "<invalid>":
		return "<error>"
	default:
		return s
	}
}

func cellsReplicaSet(o obj, now time.Time) ([]any, []RowCondition) {
	return replicaCells(o, now, formatLabelSelector(at(o, "spec", "selector")))
}

// replicaCells are the cells of a ReplicaSet and of a
// ReplicationController, which differ in how their selector is written
// (a LabelSelector, a map of labels): selector, as printed.
func replicaCells(o obj, now time.Time, selector string) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	desired, _ := atInt(o, "spec", "replicas")
	current, _ := atInt(o, "status", "replicas")
	ready, _ := atInt(o, "status", "readyReplicas")
	names, images := containerCells(o)
	return []any{name, desired, current, ready, age, names, images, selector}, nil
}

func cellsStatefulSet(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	desired, _ := atInt(o, "spec", "replicas")
	ready, _ := atInt(o, "status", "readyReplicas")
	names, images := containerCells(o)
	return []any{name, fmt.Sprintf("%d/%d", ready, desired), age, names, images}, nil
}

func cellsDaemonSet(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	n := func(f string) int64 { v, _ := atInt(o, "status", f); return v }
	names, images := containerCells(o)
	return []any{name, n("desiredNumberScheduled"), n("currentNumberScheduled"), n("numberReady"),
		n("updatedNumberScheduled"), n("numberAvailable"), formatLabels(atObj(o, "spec", "template", "spec", "nodeSelector")),
		age, names, images, formatLabelSelector(at(o, "spec", "selector"))}, nil
}

func cellsJob(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	succeeded, _ := atInt(o, "status", "succeeded")
	var completions string
	if c, ok := atInt(o, "spec", "completions"); ok {
		completions = fmt.Sprintf("%d/%d", succeeded, c)
	} else if p, _ := atInt(o, "spec", "parallelism"); p > 1 {
		completions = fmt.Sprintf("%d/1 of %d", succeeded, p)
	} else {
		completions = fmt.Sprintf("%d/1", succeeded)
	}
	var dur string
	if start, err := time.Parse(time.RFC3339, atStr(o, "status", "startTime")); err == nil {
		end := now
		if done, err := time.Parse(time.RFC3339, atStr(o, "status", "completionTime")); err == nil {
			end = done
		}
		dur = humanDuration(end.Sub(start))
	}
	var trueConds []string
	for _, c := range atList(o, "status", "conditions") {
		if atStr(c, "status") == "True" {
			trueConds = append(trueConds, atStr(c, "type"))
		}
	}
	status := "Running"
	switch {
	case slices.Contains(trueConds, "Complete"):
		status = "Complete"
	case slices.Contains(trueConds, "Failed"):
		status = "Failed"
	case at(o, "metadata", "deletionTimestamp") != nil:
		status = "Terminating"
	case slices.Contains(trueConds, "Suspended"):
		status = "Suspended"
	case slices.Contains(trueConds, "FailureTarget"):
		status = "FailureTarget"
	case slices.Contains(trueConds, "SuccessCriteriaMet"):
		status = "SuccessCriteriaMet"
	}
	names, images := containerCells(o)
	return []any{name, status, completions, dur, age, names, images, formatLabelSelector(at(o, "spec", "selector"))}, nil
}

func cellsCronJob(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	last := "<none>"
	if ts := atStr(o, "status", "lastScheduleTime"); ts != "" {
		last = since(ts, now)
	}
	tz := "<none>"
	if v, ok := at(o, "spec", "timeZone").(string); ok {
		tz = v
	}
	suspend := "<unset>"
	if v, ok := at(o, "spec", "suspend").(bool); ok {
		suspend = map[bool]string{true: "True", false: "False"}[v]
	}
	names, images := containerCells(o, "spec", "jobTemplate")
	return []any{name, atStr(o, "spec", "schedule"), tz, suspend, int64(len(atList(o, "status", "active"))), last, age,
		names, images, formatLabelSelector(at(o, "spec", "jobTemplate", "spec", "selector"))}, nil
}

func cellsReplicationController(o obj, now time.Time) ([]any, []RowCondition) {
	return replicaCells(o, now, formatLabels(atObj(o, "spec", "selector")))
}

// cellsControllerRevision: the controller as "kind.group/name" in lower
// case, "<none>" without one.
func cellsControllerRevision(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	controller := "<none>"
	for _, ref := range atList(o, "metadata", "ownerReferences") {
		if at(ref, "controller") != true {
			continue
		}
		kind := atStr(ref, "kind")
		if group, _, ok := strings.Cut(atStr(ref, "apiVersion"), "/"); ok {
			kind += "." + group
		}
		controller = strings.ToLower(kind) + "/" + atStr(ref, "name")
		break
	}
	rev, _ := atInt(o, "revision")
	return []any{name, controller, rev, age}, nil
}

// cellsIngress: up to three hosts ("*" for none), the load balancer's
// addresses, and the ports ("80, 443" with TLS).
func cellsIngress(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	class := "<none>"
	if c, ok := at(o, "spec", "ingressClassName").(string); ok {
		class = c
	}
	rules := atList(o, "spec", "rules")
	var hosts []string
	for _, r := range rules {
		if len(hosts) < 3 && atStr(r, "host") != "" {
			hosts = append(hosts, atStr(r, "host"))
		}
	}
	hostCell := strings.Join(hosts, ",")
	switch {
	case len(hosts) == 0:
		hostCell = "*"
	case len(hosts) == 3 && len(rules) > 3:
		hostCell += fmt.Sprintf(" + %d more...", len(rules)-3)
	}
	var addrs []string
	for _, in := range atList(o, "status", "loadBalancer", "ingress") {
		if a := cmpOr(atStr(in, "ip"), atStr(in, "hostname")); a != "" && !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	slices.Sort(addrs)
	addr := strings.Join(addrs, ",")
	if len(addr) > 16 {
		addr = addr[:13] + "..."
	}
	ports := "80"
	if len(atList(o, "spec", "tls")) > 0 {
		ports = "80, 443"
	}
	return []any{name, class, hostCell, addr, ports, age}, nil
}

// cellsPersistentVolumeClaim: capacity and access modes only once bound
// (spec.volumeName), "<unset>" for an unset volume mode or attributes
// class.
func cellsPersistentVolumeClaim(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	phase := atStr(o, "status", "phase")
	if at(o, "metadata", "deletionTimestamp") != nil {
		phase = "Terminating"
	}
	volume := atStr(o, "spec", "volumeName")
	var capacity, modes string
	if volume != "" {
		capacity = atStr(o, "status", "capacity", "storage")
		modes = accessModes(atStrings(o, "status", "accessModes"))
	}
	class := atStr(o, "spec", "storageClassName")
	if a := atStr(o, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class"); a != "" {
		class = a
	}
	vac, mode := "<unset>", "<unset>"
	if v, ok := at(o, "spec", "volumeAttributesClassName").(string); ok {
		vac = v
	}
	if v, ok := at(o, "spec", "volumeMode").(string); ok {
		mode = v
	}
	return []any{name, phase, volume, capacity, modes, class, vac, age, mode}, nil
}

// accessModes renders access modes as the printers do: abbreviated, in a
// fixed order, "" for none.
func accessModes(modes []string) string {
	var out []string
	for _, m := range [][2]string{{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}} {
		if slices.Contains(modes, m[0]) {
			out = append(out, m[1])
		}
	}
	return strings.Join(out, ",")
}

func cellsPersistentVolume(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	var claim string
	if ref := atObj(o, "spec", "claimRef"); ref != nil {
		claim = atStr(ref, "namespace") + "/" + atStr(ref, "name")
	}
	size := cmpOr(atStr(o, "spec", "capacity", "storage"), "0")
	phase := atStr(o, "status", "phase")
	if at(o, "metadata", "deletionTimestamp") != nil {
		phase = "Terminating"
	}
	class := atStr(o, "spec", "storageClassName")
	if a, ok := at(o, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class").(string); ok {
		class = a
	}
	vac, mode := "<unset>", "<unset>"
	if v, ok := at(o, "spec", "volumeAttributesClassName").(string); ok {
		vac = v
	}
	if v, ok := at(o, "spec", "volumeMode").(string); ok {
		mode = v
	}
	return []any{name, size, accessModes(atStrings(o, "spec", "accessModes")), atStr(o, "spec", "persistentVolumeReclaimPolicy"),
		phase, claim, class, vac, atStr(o, "status", "reason"), age, mode}, nil
}

// cellsEndpoints: the first three address:port pairs (addresses alone in
// a subset without ports), and how many more.
func cellsEndpoints(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	subsets := atList(o, "subsets")
	if len(subsets) == 0 {
		return []any{name, "<none>", age}, nil
	}
	const max = 3
	var list []string
	count := 0
	for _, ss := range subsets {
		addrs := atList(ss, "addresses")
		ports := atList(ss, "ports")
		if len(ports) == 0 {
			count += len(addrs)
			for _, a := range addrs {
				if len(list) < max {
					list = append(list, atStr(a, "ip"))
				}
			}
			continue
		}
		for _, p := range ports {
			port, _ := atInt(p, "port")
			count += len(addrs)
			for _, a := range addrs {
				if len(list) < max {
					list = append(list, net.JoinHostPort(atStr(a, "ip"), strconv.FormatInt(port, 10)))
				}
			}
		}
	}
	cell := strings.Join(list, ",")
	if count > max {
		cell += fmt.Sprintf(" + %d more...", count-max)
	}
	return []any{name, cell, age}, nil
}
