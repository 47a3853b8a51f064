// SPDX-License-Identifier: Apache-2.0

package table

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/quantity"
)

// This file computes the cells of the built-in kinds' rows from the stored
// JSON, with the rules of kube-apiserver's printers (names, counts,
// "<none>" placeholders, pod status reasons, ages). Fields the real server
// defaults and kubetest does not (a Service's type and port protocol, a
// Deployment's replicas) are read with those defaults, so that a row shows
// what the real server would show for the same request.

// since is the age of a timestamp as the real server prints it
// ("<unknown>" when absent or unreadable).
func since(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339, ts)
	if ts == "" || err != nil {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}

// humanDuration is the real server's short rendering of a duration, with
// two or three significant figures: "45s", "5m10s", "3h2m", "4d5h", "2y3d".
func humanDuration(d time.Duration) string {
	if s := int(d.Seconds()); s < -1 {
		return "<invalid>"
	} else if s < 0 {
		return "0s"
	} else if s < 120 {
		return fmt.Sprintf("%ds", s)
	}
	minutes := int(d / time.Minute)
	switch {
	case minutes < 10:
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	case minutes < 180:
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := minutes % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if d := (hours / 24) % 365; d != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, d)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// Helpers that read decoded JSON, tolerating absent and mistyped fields.

// obj is a decoded JSON object.
type obj = map[string]any

func at(o obj, path ...string) any {
	var v any = o
	for _, k := range path {
		m, ok := v.(obj)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func atStr(o obj, path ...string) string { s, _ := at(o, path...).(string); return s }

func atObj(o obj, path ...string) obj { m, _ := at(o, path...).(obj); return m }

func atInt(o obj, path ...string) (int64, bool) {
	switch v := at(o, path...).(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), true
	}
	return 0, false
}

// fieldList returns the objects of a list field; other items are skipped.
func atList(o obj, path ...string) []obj {
	l, _ := at(o, path...).([]any)
	out := make([]obj, 0, len(l))
	for _, v := range l {
		if m, ok := v.(obj); ok {
			out = append(out, m)
		}
	}
	return out
}

func atStrings(o obj, path ...string) []string {
	l, _ := at(o, path...).([]any)
	var out []string
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func nameAge(o obj, now time.Time) (string, string) {
	return atStr(o, "metadata", "name"), since(atStr(o, "metadata", "creationTimestamp"), now)
}

func cellsNamespace(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	return []any{name, atStr(o, "status", "phase"), age}, nil
}

func cellsConfigMap(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	return []any{name, int64(len(atObj(o, "data")) + len(atObj(o, "binaryData"))), age}, nil
}

func cellsSecret(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	return []any{name, atStr(o, "type"), int64(len(atObj(o, "data"))), age}, nil
}

func cellsNameAge(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	return []any{name, age}, nil
}

func cellsLease(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	return []any{name, atStr(o, "spec", "holderIdentity"), age}, nil
}

// cellsDefault are the cells of the real server's default convertor
// (LimitRanges, CustomResourceDefinitions before 1.37): the name and the creation
// time in RFC 3339.
func cellsDefault(o obj, _ time.Time) ([]any, []RowCondition) {
	created := time.Time{}
	if t, err := time.Parse(time.RFC3339, atStr(o, "metadata", "creationTimestamp")); err == nil {
		created = t
	}
	return []any{atStr(o, "metadata", "name"), created.UTC().Format(time.RFC3339)}, nil
}

func cellsService(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	spec := atObj(o, "spec")
	typ := atStr(spec, "type")
	if typ == "" {
		typ = "ClusterIP" // the real server's default
	}
	clusterIP := "<none>"
	if ips := atStrings(spec, "clusterIPs"); len(ips) > 0 {
		clusterIP = ips[0]
	} else if ip := atStr(spec, "clusterIP"); ip != "" {
		clusterIP = ip // the real server copies clusterIP into clusterIPs
	}
	external := atStrings(spec, "externalIPs")
	var externalIP string
	switch typ {
	case "ClusterIP", "NodePort":
		externalIP = "<none>"
		if len(external) > 0 {
			externalIP = strings.Join(external, ",")
		}
	case "LoadBalancer":
		var lb []string
		for _, in := range atList(o, "status", "loadBalancer", "ingress") {
			if ip := atStr(in, "ip"); ip != "" {
				lb = append(lb, ip)
			} else if h := atStr(in, "hostname"); h != "" {
				lb = append(lb, h)
			}
		}
		slices.Sort(lb)
		lb = slices.Compact(lb)
		externalIP = strings.Join(append(lb, external...), ",")
		if externalIP == "" {
			externalIP = "<pending>"
		}
	case "ExternalName":
		externalIP = atStr(spec, "externalName")
	default:
		externalIP = "<unknown>"
	}
	var ports []string
	for _, p := range atList(spec, "ports") {
		port, _ := atInt(p, "port")
		proto := atStr(p, "protocol")
		if proto == "" {
			proto = "TCP" // the real server's default
		}
		if np, _ := atInt(p, "nodePort"); np > 0 {
			ports = append(ports, fmt.Sprintf("%d:%d/%s", port, np, proto))
		} else {
			ports = append(ports, fmt.Sprintf("%d/%s", port, proto))
		}
	}
	portCell := strings.Join(ports, ",")
	if portCell == "" {
		portCell = "<none>"
	}
	return []any{name, typ, clusterIP, externalIP, portCell, age, formatLabels(atObj(spec, "selector"))}, nil
}

// formatLabels renders a label map as "a=b,c=d" sorted by key, "<none>"
// when empty.
func formatLabels(m obj) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		s, _ := m[k].(string)
		b.WriteString(k + "=" + s)
	}
	return b.String()
}

func cellsDeployment(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	desired, ok := atInt(o, "spec", "replicas")
	if !ok {
		desired = 1 // the real server's default
	}
	ready, _ := atInt(o, "status", "readyReplicas")
	updated, _ := atInt(o, "status", "updatedReplicas")
	available, _ := atInt(o, "status", "availableReplicas")
	var names, images []string
	for _, c := range atList(o, "spec", "template", "spec", "containers") {
		names = append(names, atStr(c, "name"))
		images = append(images, atStr(c, "image"))
	}
	return []any{name, fmt.Sprintf("%d/%d", ready, desired), updated, available, age,
		strings.Join(names, ","), strings.Join(images, ","), selectorString(at(o, "spec", "selector"))}, nil
}

// selectorString renders a LabelSelector as the printers do: "" for none
// or an empty one, "<invalid>" when it does not convert.
func selectorString(v any) string {
	if v == nil {
		return ""
	}
	raw, _ := json.Marshal(v)
	var ls kube.LabelSelector
	if err := json.Unmarshal(raw, &ls); err != nil {
		return "<invalid>"
	}
	sel, err := ls.AsSelector()
	if err != nil {
		return "<invalid>"
	}
	return sel.String()
}

func cellsEvent(o obj, now time.Time) ([]any, []RowCondition) {
	// events.k8s.io/v1 names the core fields differently.
	involved, source := atObj(o, "involvedObject"), atObj(o, "source")
	message, first, last := atStr(o, "message"), atStr(o, "firstTimestamp"), atStr(o, "lastTimestamp")
	count, _ := atInt(o, "count")
	controller := atStr(o, "reportingComponent")
	if atStr(o, "apiVersion") == "events.k8s.io/v1" {
		involved, source = atObj(o, "regarding"), atObj(o, "deprecatedSource")
		message, first, last = atStr(o, "note"), atStr(o, "deprecatedFirstTimestamp"), atStr(o, "deprecatedLastTimestamp")
		count, _ = atInt(o, "deprecatedCount")
		controller = atStr(o, "reportingController")
	}
	firstSeen := since(first, now)
	if first == "" {
		firstSeen = since(atStr(o, "eventTime"), now)
	}
	lastSeen := since(last, now)
	if last == "" {
		lastSeen = firstSeen
	}
	if series := atObj(o, "series"); series != nil {
		lastSeen = since(atStr(series, "lastObservedTime"), now)
		count, _ = atInt(series, "count")
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(atStr(involved, "kind"))
	if n := atStr(involved, "name"); n != "" {
		target += "/" + n
	}
	component := cmpOr(atStr(source, "component"), controller)
	instance := cmpOr(atStr(source, "host"), atStr(o, "reportingInstance"))
	src := component
	if instance != "" {
		src += ", " + instance
	}
	return []any{lastSeen, atStr(o, "type"), atStr(o, "reason"), target, atStr(involved, "fieldPath"),
		src, strings.TrimSpace(message), firstSeen, count, atStr(o, "metadata", "name")}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func cellsResourceQuota(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	hard, used := atObj(o, "status", "hard"), atObj(o, "status", "used")
	resources := make([]string, 0, len(hard))
	for r := range hard {
		resources = append(resources, r)
	}
	slices.Sort(resources)
	var request, limit []string
	for _, r := range resources {
		cell := r + ": " + quantity.Format(used[r]) + "/" + quantity.Format(hard[r])
		if before, _, ok := strings.Cut(r, "."); ok && before == "limits" {
			limit = append(limit, cell)
		} else {
			request = append(request, cell)
		}
	}
	return []any{name, strings.Join(request, ", "), strings.Join(limit, ", "), age}, nil
}
