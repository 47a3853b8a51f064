// SPDX-License-Identifier: Apache-2.0

// Package autoscaling converts HorizontalPodAutoscalers between
// autoscaling/v1 and autoscaling/v2, the version kubetest stores them at
// ([ToV2], [ToV1]), and defaults them ([Default]). It keeps no state.
package autoscaling

// HorizontalPodAutoscalers are served at autoscaling/v1 as well as
// autoscaling/v2, where they are stored: a v1 object is its v2 form with
// one CPU utilization target. The conversion follows kube-apiserver 1.36's
// for the fields both versions have (the target, the replica counts, the
// observed generation, the last scale time, the current CPU utilization);
// the annotations in which the real server keeps, for v1 readers, the
// metrics, behavior and conditions v1 cannot hold are not written or
// read (DIFFERENCES.md, "Served kinds").

// defaultCPUUtilization is the CPU utilization target of an autoscaler
// without metrics, in percent, as both versions default it.
const defaultCPUUtilization = 80

// obj is a decoded JSON object.
type obj = map[string]any

// Default applies the defaults of both versions to o, an autoscaler at
// version (v1 or v2): minReplicas 1, and at v2 a CPU utilization target
// when there are no metrics.
func Default(version string, o map[string]any) {
	spec, _ := o["spec"].(obj)
	if spec == nil {
		return
	}
	if _, ok := spec["minReplicas"]; !ok {
		spec["minReplicas"] = int64(1)
	}
	if m, _ := spec["metrics"].([]any); version == "v2" && len(m) == 0 {
		spec["metrics"] = []any{cpuMetric("target", defaultCPUUtilization)}
	}
}

// cpuMetric is a Resource metric of CPU whose field (target or current)
// has the averageUtilization u.
func cpuMetric(field string, u any) obj {
	val := obj{"averageUtilization": u}
	if field == "target" {
		val["type"] = "Utilization"
	}
	return obj{"type": "Resource", "resource": obj{"name": "cpu", field: val}}
}

// cpuUtilization finds, in a v2 list of metrics, the averageUtilization
// of field (target or current) of the CPU Resource metric.
func cpuUtilization(metrics any, field string) (any, bool) {
	list, _ := metrics.([]any)
	for _, m := range list {
		mo, _ := m.(obj)
		r, _ := mo["resource"].(obj)
		if mo["type"] != "Resource" || r == nil || r["name"] != "cpu" {
			continue
		}
		f, _ := r[field].(obj)
		if u, ok := f["averageUtilization"]; ok && u != nil {
			return u, true
		}
	}
	return nil, false
}

// ToV2 converts a v1 autoscaler to v2, the stored version. The result
// shares o's nested values but spec and status.
func ToV2(o map[string]any) map[string]any {
	out := copyExcept(o, "spec", "status")
	if spec, ok := o["spec"].(obj); ok {
		s := copyExcept(spec, "targetCPUUtilizationPercentage")
		u, ok := spec["targetCPUUtilizationPercentage"]
		if !ok || u == nil {
			u = int64(defaultCPUUtilization)
		}
		s["metrics"] = []any{cpuMetric("target", u)}
		out["spec"] = s
	}
	if st, ok := o["status"].(obj); ok {
		s := copyExcept(st, "currentCPUUtilizationPercentage")
		if u, ok := st["currentCPUUtilizationPercentage"]; ok && u != nil {
			s["currentMetrics"] = []any{cpuMetric("current", u)}
		} else {
			s["currentMetrics"] = nil
		}
		out["status"] = s
	}
	return out
}

// ToV1 converts a v2 autoscaler to v1. The result shares o's nested
// values but spec and status.
func ToV1(o map[string]any) map[string]any {
	out := copyExcept(o, "spec", "status")
	if spec, ok := o["spec"].(obj); ok {
		s := copyExcept(spec, "metrics", "behavior")
		if u, ok := cpuUtilization(spec["metrics"], "target"); ok {
			s["targetCPUUtilizationPercentage"] = u
		}
		out["spec"] = s
	}
	if st, ok := o["status"].(obj); ok {
		s := copyExcept(st, "currentMetrics", "conditions")
		if _, ok := s["currentReplicas"]; !ok {
			s["currentReplicas"] = int64(0) // not optional at v1
		}
		if u, ok := cpuUtilization(st["currentMetrics"], "current"); ok {
			s["currentCPUUtilizationPercentage"] = u
		}
		out["status"] = s
	}
	return out
}

// copyExcept is a shallow copy of m without the keys drop.
func copyExcept(m obj, drop ...string) obj {
	out := make(obj, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	return out
}
