// SPDX-License-Identifier: Apache-2.0

package defaulting

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/quantity"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file defaults Deployments and Pods as kube-apiserver 1.36 decodes
// them (the defaults of k8s.io/api's apps/v1 and core/v1), checked against
// the objects the real server stored (testdata/defaults.json,
// TestDefaultsAsCaptured). The defaults run on every write, before
// managedFields are computed, so an Update entry owns them as it does on
// the real server; what admission and the create strategy add to a Pod
// (podAdmission) is owned by nobody. Each default fills a field only when
// it is missing, so a write that sends the field keeps its value.
//
// Not defaulted (kinds and fields that kubetest does not serve or that
// need more than a constant): the volume sources of cloud disks (iSCSI,
// RBD, Azure disk, ScaleIO), pod-level resources, the rounding of
// resource quantities to milli units, and priority classes other than
// none.

// Pod spec constants of core/v1.
const (
	defaultTerminationMessagePath = "/dev/termination-log"
	defaultSchedulerName          = "default-scheduler"
	defaultGracePeriodSeconds     = int64(30)
	defaultFileMode               = int64(0o644) // 420, of secret, configMap, downwardAPI and projected volumes
)

// defaultDeployment applies apps/v1's Deployment defaults.
func defaultDeployment(o obj) {
	spec := unstructured.Child(o, "spec", true)
	if spec == nil {
		return
	}
	setMissing(spec, "replicas", int64(1))
	if strategy := unstructured.Child(spec, "strategy", true); strategy != nil {
		setMissing(strategy, "type", "RollingUpdate")
		if strategy["type"] == "RollingUpdate" {
			if ru := unstructured.Child(strategy, "rollingUpdate", true); ru != nil {
				setMissing(ru, "maxUnavailable", "25%")
				setMissing(ru, "maxSurge", "25%")
			}
		}
	}
	setMissing(spec, "revisionHistoryLimit", int64(10))
	setMissing(spec, "progressDeadlineSeconds", int64(600))
	if tmpl := unstructured.Child(spec, "template", false); tmpl != nil {
		if ps := unstructured.Child(tmpl, "spec", false); ps != nil {
			defaultPodSpec(ps, false)
		}
	}
}

// defaultPod applies core/v1's Pod defaults: those of every pod spec and
// those of a Pod only (enableServiceLinks, requests from limits, host
// ports of host-network pods).
func defaultPod(o obj) {
	if spec := unstructured.Child(o, "spec", true); spec != nil {
		defaultPodSpec(spec, true)
	}
}

// defaultPodSpec applies the defaults of a pod spec; pod says it is a
// Pod's own, not a template's.
func defaultPodSpec(spec obj, pod bool) {
	setMissing(spec, "dnsPolicy", "ClusterFirst")
	setMissing(spec, "restartPolicy", "Always")
	setMissing(spec, "securityContext", obj{})
	setMissing(spec, "terminationGracePeriodSeconds", defaultGracePeriodSeconds)
	setMissing(spec, "schedulerName", defaultSchedulerName)
	hostNetwork := spec["hostNetwork"] == true
	for _, k := range []string{"initContainers", "containers", "ephemeralContainers"} {
		eachObject(spec, k, func(c obj) { defaultContainer(c, pod && k != "ephemeralContainers", pod && hostNetwork) })
	}
	eachObject(spec, "volumes", defaultVolume)
	if pod {
		setMissing(spec, "enableServiceLinks", true)
	}
}

// defaultContainer applies the defaults of a container. requests says
// missing requests are copied from the limits (a Pod's containers);
// hostPorts that ports without a host port get their container port.
func defaultContainer(c obj, requests, hostPorts bool) {
	if unstructured.String(c, "imagePullPolicy") == "" {
		c["imagePullPolicy"] = pullPolicy(unstructured.String(c, "image"))
	}
	setMissing(c, "terminationMessagePath", defaultTerminationMessagePath)
	setMissing(c, "terminationMessagePolicy", "File")
	eachObject(c, "ports", func(p obj) {
		setMissing(p, "protocol", "TCP")
		if hostPorts {
			if hp, _ := unstructured.IntegerValue(p["hostPort"]); hp == 0 {
				p["hostPort"] = p["containerPort"]
			}
		}
	})
	eachObject(c, "env", func(e obj) {
		if from := unstructured.Child(e, "valueFrom", false); from != nil {
			defaultFieldRef(from)
			if ref := unstructured.Child(from, "fileKeyRef", false); ref != nil {
				setMissing(ref, "optional", false)
			}
		}
	})
	res := unstructured.Child(c, "resources", true)
	if limits := unstructured.Child(res, "limits", false); requests && res != nil && limits != nil {
		req := unstructured.Child(res, "requests", true)
		for k, v := range limits {
			if _, ok := req[k]; !ok {
				req[k] = v
			}
		}
	}
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if p := unstructured.Child(c, k, false); p != nil {
			setMissing(p, "timeoutSeconds", int64(1))
			setMissing(p, "periodSeconds", int64(10))
			setMissing(p, "successThreshold", int64(1))
			setMissing(p, "failureThreshold", int64(3))
			defaultHandler(p)
			if g := unstructured.Child(p, "grpc", false); g != nil {
				if _, ok := g["service"]; !ok {
					g["service"] = ""
				}
			}
		}
	}
	if lc := unstructured.Child(c, "lifecycle", false); lc != nil {
		for _, k := range []string{"postStart", "preStop"} {
			if h := unstructured.Child(lc, k, false); h != nil {
				defaultHandler(h)
			}
		}
	}
}

// defaultHandler defaults the httpGet of a probe or lifecycle handler.
func defaultHandler(h obj) {
	if get := unstructured.Child(h, "httpGet", false); get != nil {
		setMissing(get, "path", "/")
		setMissing(get, "scheme", "HTTP")
	}
}

// defaultFieldRef gives the fieldRef of m its apiVersion v1.
func defaultFieldRef(m obj) {
	if ref := unstructured.Child(m, "fieldRef", false); ref != nil {
		setMissing(ref, "apiVersion", "v1")
	}
}

// pullPolicy is the default imagePullPolicy of an image: Always for the
// tag latest, written or implied (no tag and no digest), else
// IfNotPresent.
func pullPolicy(image string) string {
	name, _, digest := strings.Cut(image, "@")
	tag := ""
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		tag = name[i+1:]
	}
	if tag == "latest" || (tag == "" && !digest && image != "") {
		return "Always"
	}
	return "IfNotPresent"
}

// defaultVolume applies the defaults of a pod volume: emptyDir when it
// names no source, the file mode of the sources that write files, the
// type of a hostPath, the fieldRefs of downward API items.
func defaultVolume(v obj) {
	hasSource := false
	for k := range v {
		if k != "name" {
			hasSource = true
		}
	}
	if !hasSource {
		v["emptyDir"] = obj{}
	}
	for _, k := range []string{"secret", "configMap", "downwardAPI", "projected"} {
		if src := unstructured.Child(v, k, false); src != nil {
			setMissing(src, "defaultMode", defaultFileMode)
		}
	}
	if hp := unstructured.Child(v, "hostPath", false); hp != nil {
		if _, ok := hp["type"]; !ok {
			hp["type"] = ""
		}
	}
	if d := unstructured.Child(v, "downwardAPI", false); d != nil {
		eachObject(d, "items", defaultFieldRef)
	}
	if p := unstructured.Child(v, "projected", false); p != nil {
		eachObject(p, "sources", func(s obj) {
			if d := unstructured.Child(s, "downwardAPI", false); d != nil {
				eachObject(d, "items", defaultFieldRef)
			}
			if tok := unstructured.Child(s, "serviceAccountToken", false); tok != nil {
				setMissing(tok, "expirationSeconds", int64(3600))
			}
		})
	}
	if e := unstructured.Child(v, "ephemeral", false); e != nil {
		if t := unstructured.Child(e, "volumeClaimTemplate", false); t != nil {
			if spec := unstructured.Child(t, "spec", false); spec != nil {
				setMissing(spec, "volumeMode", "Filesystem")
			}
		}
	}
}

// podAdmission adds to a Pod being created what the real server's
// default admission plugins and create strategy add, which no manager
// owns: priority 0 and its preemption policy (Priority, for a pod without
// a priority class), the tolerations of the not-ready and unreachable
// taints for 300 s (DefaultTolerationSeconds), and status.qosClass.
func podAdmission(o obj) {
	spec := unstructured.Child(o, "spec", true)
	if spec == nil {
		return
	}
	if unstructured.String(spec, "priorityClassName") == "" {
		setMissing(spec, "priority", int64(0))
		setMissing(spec, "preemptionPolicy", "PreemptLowerPriority")
	}
	tolerations, _ := spec["tolerations"].([]any)
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		if !tolerated(tolerations, key) {
			tolerations = append(tolerations, obj{"key": key, "operator": "Exists",
				"effect": "NoExecute", "tolerationSeconds": int64(300)})
		}
	}
	spec["tolerations"] = tolerations
	status := unstructured.Child(o, "status", true)
	if status != nil {
		status["qosClass"] = qosClass(spec)
	}
}

// tolerated reports whether a toleration of the list tolerates the
// NoExecute taint key.
func tolerated(tolerations []any, key string) bool {
	for _, t := range tolerations {
		tol, ok := t.(obj)
		if !ok {
			continue
		}
		k, effect := unstructured.String(tol, "key"), unstructured.String(tol, "effect")
		if (k == key || (k == "" && tol["operator"] == "Exists")) && (effect == "" || effect == "NoExecute") {
			return true
		}
	}
	return false
}

// qosClass is a pod's quality of service class, from the cpu and memory
// requests and limits of its containers and init containers: BestEffort
// when none is set, Guaranteed when every container limits both and the
// requests equal the limits, else Burstable.
func qosClass(spec obj) string {
	guaranteed, any := true, false
	reqs, lims := map[string]string{}, map[string]string{}
	for _, k := range []string{"initContainers", "containers"} {
		eachObject(spec, k, func(c obj) {
			res := unstructured.Child(c, "resources", false)
			req, lim := unstructured.Child(res, "requests", false), unstructured.Child(res, "limits", false)
			for _, name := range []string{"cpu", "memory"} {
				if q := quantity.Format(req[name]); q != "0" {
					reqs[name+"/"+k+"/"+unstructured.String(c, "name")] = q
					any = true
				}
				q := quantity.Format(lim[name])
				if q == "0" {
					guaranteed = false
					continue
				}
				lims[name+"/"+k+"/"+unstructured.String(c, "name")] = q
				any = true
			}
		})
	}
	switch {
	case !any:
		return "BestEffort"
	case !guaranteed || len(reqs) != len(lims):
		return "Burstable"
	}
	for k, q := range reqs {
		if lims[k] != q {
			return "Burstable"
		}
	}
	return "Guaranteed"
}

// QOSClass is the quality of service class of a pod spec (qosClass), as
// a Pod's status.qosClass shows it.
func QOSClass(spec map[string]any) string { return qosClass(spec) }
