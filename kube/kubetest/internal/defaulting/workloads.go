// SPDX-License-Identifier: Apache-2.0

package defaulting

import (
	"reflect"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file defaults the kinds kubetest serves so that kubectl finds them
// (apply --prune, rollout history) beyond Deployments and Pods
// (pod.go): ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
// ReplicationControllers, Endpoints, PersistentVolumeClaims and
// PersistentVolumes, as kube-apiserver 1.36 defaults them (checked
// against testdata/defaults.json but for PersistentVolumes). No controller
// acts on them: they hold what a client writes.

// defaultWorkload applies the defaults of the kinds of this file, by
// group and resource; it reports whether it is one of them.
func defaultWorkload(group, plural string, o obj) bool {
	spec := unstructured.Child(o, "spec", false)
	switch group + "/" + plural {
	case "apps/replicasets":
		if spec != nil {
			setMissing(spec, "replicas", int64(1))
			defaultTemplate(spec)
		}
	case "apps/statefulsets":
		if spec != nil {
			defaultStatefulSet(spec)
		}
	case "apps/daemonsets":
		if spec != nil {
			defaultDaemonSet(o, spec)
		}
	case "batch/jobs":
		if spec != nil {
			defaultJob(o, spec)
		}
	case "batch/cronjobs":
		if spec != nil {
			setMissing(spec, "concurrencyPolicy", "Allow")
			setMissing(spec, "suspend", false)
			setMissing(spec, "successfulJobsHistoryLimit", int64(3))
			setMissing(spec, "failedJobsHistoryLimit", int64(1))
			if jt := unstructured.Child(spec, "jobTemplate", false); jt != nil {
				setMissing(jt, "metadata", obj{})
				if js := unstructured.Child(jt, "spec", false); js != nil {
					defaultTemplate(js)
				}
			}
		}
	case "/replicationcontrollers":
		if spec != nil {
			defaultReplicationController(o, spec)
		}
	case "/endpoints":
		eachObject(o, "subsets", func(ss obj) { eachObject(ss, "ports", func(p obj) { setMissing(p, "protocol", "TCP") }) })
	case "/persistentvolumeclaims":
		if spec != nil {
			setMissing(spec, "volumeMode", "Filesystem")
		}
	case "/persistentvolumes":
		if spec != nil {
			setMissing(spec, "persistentVolumeReclaimPolicy", "Retain")
			setMissing(spec, "volumeMode", "Filesystem")
		}
	default:
		return false
	}
	return true
}

// defaultTemplate defaults the pod template spec.template: its pod spec,
// and its metadata, an empty object when missing (a Go struct).
func defaultTemplate(spec obj) {
	tmpl := unstructured.Child(spec, "template", false)
	if tmpl == nil {
		return
	}
	setMissing(tmpl, "metadata", obj{})
	if ps := unstructured.Child(tmpl, "spec", false); ps != nil {
		defaultPodSpec(ps, false)
	}
}

func defaultStatefulSet(spec obj) {
	setMissing(spec, "podManagementPolicy", "OrderedReady")
	if us := unstructured.Child(spec, "updateStrategy", true); us != nil {
		if unstructured.String(us, "type") == "" {
			us["type"] = "RollingUpdate"
			setMissing(us, "rollingUpdate", obj{})
		}
		if ru := unstructured.Child(us, "rollingUpdate", false); ru != nil && us["type"] == "RollingUpdate" {
			setMissing(ru, "partition", int64(0))
			// 1.37 turns MaxUnavailableStatefulSet on by default.
			setMissing(ru, "maxUnavailable", int64(1))
		}
	}
	if p := unstructured.Child(spec, "persistentVolumeClaimRetentionPolicy", true); p != nil {
		setMissing(p, "whenDeleted", "Retain")
		setMissing(p, "whenScaled", "Retain")
	}
	setMissing(spec, "replicas", int64(1))
	setMissing(spec, "revisionHistoryLimit", int64(10))
	defaultTemplate(spec)
	eachObject(spec, "volumeClaimTemplates", func(pvc obj) {
		setMissing(pvc, "apiVersion", "v1")
		setMissing(pvc, "kind", "PersistentVolumeClaim")
		if s := unstructured.Child(pvc, "spec", false); s != nil {
			setMissing(s, "volumeMode", "Filesystem")
		}
		if st := unstructured.Child(pvc, "status", true); st != nil {
			setMissing(st, "phase", "Pending")
		}
	})
}

// templateGenerationAnnotation holds a DaemonSet's template generation,
// 1 on create and one more at each change of the template.
const templateGenerationAnnotation = "deprecated.daemonset.template.generation"

func defaultDaemonSet(o, spec obj) {
	if us := unstructured.Child(spec, "updateStrategy", true); us != nil {
		setMissing(us, "type", "RollingUpdate")
		if us["type"] == "RollingUpdate" {
			if ru := unstructured.Child(us, "rollingUpdate", true); ru != nil {
				setMissing(ru, "maxUnavailable", int64(1))
				setMissing(ru, "maxSurge", int64(0))
			}
		}
	}
	setMissing(spec, "revisionHistoryLimit", int64(10))
	defaultTemplate(spec)
	if ann := unstructured.Child(unstructured.Metadata(o), "annotations", true); ann != nil {
		setMissing(ann, templateGenerationAnnotation, "1")
	}
}

// keepTemplateGeneration sets a DaemonSet's template generation on update:
// the old one, plus one when the template changed.
func keepTemplateGeneration(next, old obj) {
	oldAnn, _ := unstructured.Metadata(old)["annotations"].(obj)
	gen, _ := strconv.ParseInt(unstructured.String(oldAnn, templateGenerationAnnotation), 10, 64)
	if !reflect.DeepEqual(unstructured.Child(unstructured.Child(next, "spec", false), "template", false), unstructured.Child(unstructured.Child(old, "spec", false), "template", false)) {
		gen++
	}
	if ann := unstructured.Child(unstructured.Metadata(next), "annotations", true); ann != nil {
		ann[templateGenerationAnnotation] = strconv.FormatInt(gen, 10)
	}
}

func defaultJob(o, spec obj) {
	_, completions := spec["completions"]
	_, parallelism := spec["parallelism"]
	if !completions && !parallelism {
		spec["completions"] = int64(1)
	}
	setMissing(spec, "parallelism", int64(1))
	if spec["backoffLimitPerIndex"] != nil {
		setMissing(spec, "backoffLimit", int64(1<<31-1))
	} else {
		setMissing(spec, "backoffLimit", int64(6))
	}
	copyTemplateLabels(o, spec)
	setMissing(spec, "completionMode", "NonIndexed")
	setMissing(spec, "suspend", false)
	if spec["podFailurePolicy"] != nil {
		setMissing(spec, "podReplacementPolicy", "Failed")
	} else {
		setMissing(spec, "podReplacementPolicy", "TerminatingOrFailed")
	}
	setMissing(spec, "manualSelector", false)
	defaultTemplate(spec)
}

// copyTemplateLabels gives an object without labels those of its pod
// template (a Job, a ReplicationController).
func copyTemplateLabels(o, spec obj) {
	labels := unstructured.Child(unstructured.Child(unstructured.Child(spec, "template", false), "metadata", false), "labels", false)
	meta := unstructured.Metadata(o)
	if cur, _ := meta["labels"].(obj); labels != nil && len(cur) == 0 {
		meta["labels"] = unstructured.DeepCopy(labels)
	}
}

// jobSelector is what a Job's create strategy adds unless the Job asks for
// a manual selector: labels naming the job and its uid on the pod
// template, a selector of the uid label; and then the labels a Job
// without its own gets from the template when read back.
func jobSelector(o obj) {
	spec := unstructured.Child(o, "spec", false)
	if spec == nil || spec["manualSelector"] == true {
		return
	}
	meta := unstructured.Metadata(o)
	name, uid := unstructured.String(meta, "name"), unstructured.String(meta, "uid")
	tmpl := unstructured.Child(spec, "template", true)
	labels := unstructured.Child(unstructured.Child(tmpl, "metadata", true), "labels", true)
	if labels == nil {
		return
	}
	for k, v := range map[string]string{"job-name": name, "batch.kubernetes.io/job-name": name,
		"controller-uid": uid, "batch.kubernetes.io/controller-uid": uid} {
		setMissing(labels, k, v)
	}
	if match := unstructured.Child(unstructured.Child(spec, "selector", true), "matchLabels", true); match != nil {
		setMissing(match, "batch.kubernetes.io/controller-uid", uid)
	}
	copyTemplateLabels(o, spec)
}

func defaultReplicationController(o, spec obj) {
	if labels := unstructured.Child(unstructured.Child(unstructured.Child(spec, "template", false), "metadata", false), "labels", false); labels != nil {
		if sel, _ := spec["selector"].(obj); len(sel) == 0 {
			spec["selector"] = unstructured.DeepCopy(labels)
		}
		copyTemplateLabels(o, spec)
	}
	setMissing(spec, "replicas", int64(1))
	defaultTemplate(spec)
}

// workloadAdmission adds what the default admission plugins and create
// strategies add to the kinds of this file, owned by nobody: a Job's
// selector, the protection finalizer of volumes and claims.
func workloadAdmission(group, plural string, o obj) {
	switch group + "/" + plural {
	case "batch/jobs":
		jobSelector(o)
	case "/persistentvolumeclaims":
		addFinalizer(o, "kubernetes.io/pvc-protection")
	case "/persistentvolumes":
		addFinalizer(o, "kubernetes.io/pv-protection")
	}
}

func addFinalizer(o obj, f string) {
	meta := unstructured.Metadata(o)
	fins, _ := meta["finalizers"].([]any)
	for _, x := range fins {
		if x == f {
			return
		}
	}
	meta["finalizers"] = append(fins, f)
}
