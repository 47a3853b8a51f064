// SPDX-License-Identifier: Apache-2.0

package events

import (
	"fmt"
	"reflect"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// obj is a decoded JSON object.
type obj = map[string]any

// eventRenames pairs the core v1 fields with their events.k8s.io/v1
// names; the other fields (metadata, reason, type, eventTime, series,
// action, related, reportingInstance) keep their name.
func eventRenames() [][2]string {
	return [][2]string{
		{"involvedObject", "regarding"},
		{"message", "note"},
		{"source", "deprecatedSource"},
		{"firstTimestamp", "deprecatedFirstTimestamp"},
		{"lastTimestamp", "deprecatedLastTimestamp"},
		{"count", "deprecatedCount"},
		{"reportingComponent", "reportingController"},
	}
}

// FieldAliases maps the field selectors of events.k8s.io/v1 to the
// core fields they select, as the group's field label conversion does.
func FieldAliases() map[string]string {
	m := map[string]string{"reportingController": "reportingComponent"}
	for _, f := range []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
		m["regarding."+f] = "involvedObject." + f
	}
	return m
}

// ToCore converts o, an events.k8s.io/v1 Event (or a core one, which
// only gets its zero fields), to the core v1 form.
func ToCore(o map[string]any) map[string]any {
	out := renameFields(o, 1, 0)
	for _, k := range []string{"involvedObject", "source"} {
		if _, ok := out[k].(obj); !ok {
			out[k] = obj{}
		}
	}
	for _, k := range []string{"firstTimestamp", "lastTimestamp", "eventTime"} {
		if _, ok := out[k]; !ok {
			out[k] = nil
		}
	}
	for _, k := range []string{"reportingComponent", "reportingInstance"} {
		if _, ok := out[k]; !ok {
			out[k] = ""
		}
	}
	for _, k := range []string{"reason", "message", "type", "action"} {
		if out[k] == "" {
			delete(out, k)
		}
	}
	dropZero(out, "count")
	if src, ok := out["source"].(obj); ok {
		for _, k := range []string{"component", "host"} {
			if src[k] == "" {
				delete(src, k)
			}
		}
	}
	if s, ok := out["series"].(obj); ok {
		dropZero(s, "count")
		if s["lastObservedTime"] == nil {
			delete(s, "lastObservedTime")
		}
	}
	return out
}

// ToEvents converts o, a stored core v1 Event, to the events.k8s.io/v1
// form.
func ToEvents(o map[string]any) map[string]any {
	out := renameFields(o, 0, 1)
	for _, k := range []string{"regarding", "deprecatedSource"} {
		if _, ok := out[k].(obj); !ok {
			out[k] = obj{}
		}
	}
	for _, k := range []string{"eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"} {
		if _, ok := out[k]; !ok {
			out[k] = nil
		}
	}
	for _, k := range []string{"reportingController", "reportingInstance", "action", "reason", "note", "type"} {
		if out[k] == "" {
			delete(out, k)
		}
	}
	dropZero(out, "deprecatedCount")
	if s, ok := out["series"].(obj); ok {
		if _, ok := s["count"]; !ok {
			s["count"] = int64(0)
		}
		if _, ok := s["lastObservedTime"]; !ok {
			s["lastObservedTime"] = nil
		}
	}
	return out
}

// renameFields returns o with each field named pair[from] of
// eventRenames renamed pair[to].
func renameFields(o obj, from, to int) obj {
	out := make(obj, len(o)+4)
	for k, v := range o {
		out[k] = v
	}
	for _, p := range eventRenames() {
		if v, ok := out[p[from]]; ok {
			delete(out, p[from])
			out[p[to]] = v
		}
	}
	return out
}

// dropZero deletes o[k] when it is the number 0 (omitempty).
func dropZero(o obj, k string) {
	switch v := o[k].(type) {
	case int64:
		if v == 0 {
			delete(o, k)
		}
	case float64:
		if v == 0 {
			delete(o, k)
		}
	}
}

// Validate returns what kube-apiserver refuses of an Event about to be
// stored, o of the resource plural of group (nil for other resources), old the stored one (nil for a create):
// through either API, an Event without eventTime must be in its
// involvedObject's namespace and one with an eventTime needs its
// reporting fields, action and reason; a create through events.k8s.io/v1
// needs an eventTime, a type of Normal or Warning and none of the
// deprecated fields; an update through events.k8s.io/v1 keeps the first
// report immutable and checks a changed series. Fields are named as core
// Events name them (message for note), reportingController excepted;
// values of immutable objects are shown as JSON, where the real server
// prints Go values.
func Validate(group, plural string, o, old map[string]any) []fielderr.Error {
	if plural != "events" || (group != "" && group != "events.k8s.io") {
		return nil
	}
	e := ToCore(o)
	errs := legacyEventErrors(group, e)
	switch {
	case group == "":
		return errs
	case old == nil:
		return append(errs, eventCreateErrors(e)...)
	}
	return append(errs, eventUpdateErrors(e, ToCore(old))...)
}

// legacyEventErrors checks what every Event write is checked for.
func legacyEventErrors(group string, e obj) []fielderr.Error {
	var errs []fielderr.Error
	invalid := func(field string, value any, detail string) {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field, Value: value, Detail: detail})
	}
	required := func(field string) { errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: field}) }
	ns := unstructured.String(unstructured.Metadata(e), "namespace")
	involved, _ := e["involvedObject"].(obj)
	ioNS := unstructured.String(involved, "namespace")
	if e["eventTime"] == nil {
		if (ioNS == "" && ns != "" && ns != "default") || (ioNS != "" && ns != ioNS) {
			invalid("involvedObject.namespace", ioNS, "does not match event.namespace")
		}
		return errs
	}
	if ioNS == "" && ns != "default" && ns != "kube-system" {
		invalid("involvedObject.namespace", ioNS, "does not match event.namespace")
	}
	controller, controllerField := unstructured.String(e, "reportingComponent"), "reportingController"
	if group == "" {
		controllerField = "reportingComponent"
	}
	if controller == "" {
		required(controllerField)
	}
	for _, msg := range validation.QualifiedName(controller) {
		invalid(controllerField, controller, msg)
	}
	for _, f := range []struct {
		name string
		max  int
	}{{"reportingInstance", 128}, {"action", 128}, {"reason", 128}, {"message", 1024}} {
		v := unstructured.String(e, f.name)
		if v == "" && f.name != "message" {
			required(f.name)
		}
		if len(v) > f.max {
			invalid(f.name, "", fmt.Sprintf("can have at most %d characters", f.max))
		}
	}
	return errs
}

// eventCreateErrors checks what a create through events.k8s.io/v1 is
// checked for beyond legacyEventErrors.
func eventCreateErrors(e obj) []fielderr.Error {
	errs := seriesErrors(e)
	if e["eventTime"] == nil {
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: "eventTime"})
	}
	if t := unstructured.String(e, "type"); t != "Normal" && t != "Warning" {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "type", Value: "", Detail: "has invalid value: " + t})
	}
	unset := func(field string) {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field, Value: "", Detail: "needs to be unset"})
	}
	for _, f := range []string{"firstTimestamp", "lastTimestamp"} {
		if e[f] != nil {
			unset(f)
		}
	}
	if _, ok := e["count"]; ok {
		unset("count")
	}
	if src, _ := e["source"].(obj); len(src) > 0 {
		unset("source")
	}
	return errs
}

// seriesErrors checks an Event's series: at least 2, with a
// lastObservedTime.
func seriesErrors(e obj) []fielderr.Error {
	s, ok := e["series"].(obj)
	if !ok {
		return nil
	}
	var errs []fielderr.Error
	if c, _ := unstructured.IntegerValue(s["count"]); c < 2 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "series.count", Value: "",
			Detail: "should be at least 2"})
	}
	if s["lastObservedTime"] == nil {
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: "series.lastObservedTime"})
	}
	return errs
}

// eventUpdateErrors checks what an update through events.k8s.io/v1 is
// checked for beyond legacyEventErrors, n and o in the core form.
func eventUpdateErrors(n, o obj) []fielderr.Error {
	var errs []fielderr.Error
	if !reflect.DeepEqual(n["series"], o["series"]) {
		errs = seriesErrors(n)
	}
	for _, f := range []string{"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
		"count", "reason", "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance"} {
		nv, ov := n[f], o[f]
		if reflect.DeepEqual(nv, ov) {
			continue
		}
		if f == "count" || f == "reason" || f == "message" || f == "type" || f == "action" || f == "reportingComponent" ||
			f == "reportingInstance" {
			if nv == nil { // omitted: the Go zero value
				nv = zeroOf(ov)
			}
		}
		field := f
		if f == "reportingComponent" {
			field = "reportingController"
		}
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field, Value: nv, Detail: "field is immutable"})
	}
	return errs
}

// zeroOf is the Go zero value of a JSON scalar like v.
func zeroOf(v any) any {
	switch v.(type) {
	case int64, float64:
		return int64(0)
	}
	return ""
}
