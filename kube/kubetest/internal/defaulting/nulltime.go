// SPDX-License-Identifier: Apache-2.0

package defaulting

// NullTemplateTimestamps gives the object templates of o, an object of
// the resource plural of group about to be stored, the
// metadata.creationTimestamp: null that 1.33 writes for their zero time
// (newer minors leave it out): the pod template of workloads and
// PodTemplates, a CronJob's job template and its pod template. It
// touches no other kind, and no time a template has.
func NullTemplateTimestamps(group, plural string, o map[string]any) {
	var paths [][]string
	switch group + "/" + plural {
	case "apps/deployments", "apps/replicasets", "apps/statefulsets", "apps/daemonsets", "/replicationcontrollers", "batch/jobs":
		paths = [][]string{{"spec", "template"}}
	case "/podtemplates":
		paths = [][]string{{"template"}}
	case "batch/cronjobs":
		paths = [][]string{{"spec", "jobTemplate"}, {"spec", "jobTemplate", "spec", "template"}}
	}
	for _, path := range paths {
		tmpl := o
		for _, k := range path {
			tmpl, _ = tmpl[k].(obj)
		}
		if tmpl == nil {
			continue
		}
		meta, _ := tmpl["metadata"].(obj)
		if meta == nil {
			meta = obj{}
			tmpl["metadata"] = meta
		}
		if _, ok := meta["creationTimestamp"]; !ok {
			meta["creationTimestamp"] = nil
		}
	}
}
