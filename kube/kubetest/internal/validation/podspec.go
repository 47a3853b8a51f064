// SPDX-License-Identifier: Apache-2.0

package validation

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// This file checks what every pod spec needs, as ValidatePodSpec does
// for a Pod and for the pod template of each workload: containers.

// podSpecPaths are where the built-in kinds keep a pod spec, by group and
// plural.
var podSpecPaths = map[string]string{
	"/pods":                   "spec",
	"/podtemplates":           "template.spec",
	"/replicationcontrollers": "spec.template.spec",
	"apps/deployments":        "spec.template.spec",
	"apps/replicasets":        "spec.template.spec",
	"apps/statefulsets":       "spec.template.spec",
	"apps/daemonsets":         "spec.template.spec",
	"batch/jobs":              "spec.template.spec",
	"batch/cronjobs":          "spec.jobTemplate.spec.template.spec",
}

// PodSpec returns the error of an object of group and plural whose pod
// spec (a Pod's spec, a workload's pod template) has no containers:
// "<path>.containers: Required value", as kube-apiserver 1.36 answers it
// (also to a dry run). Other kinds, and pod specs with containers, have
// none. It reads o and never changes it.
func PodSpec(group, plural string, o map[string]any) []fielderr.Error {
	path, ok := podSpecPaths[group+"/"+plural]
	if !ok {
		return nil
	}
	var spec any = o
	for _, k := range strings.Split(path, ".") {
		m, _ := spec.(map[string]any)
		spec = m[k]
	}
	m, _ := spec.(map[string]any)
	if containers, _ := m["containers"].([]any); len(containers) > 0 {
		return nil
	}
	return []fielderr.Error{{Type: "FieldValueRequired", Field: path + ".containers", Detail: ""}}
}
