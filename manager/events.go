// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the event recorder's front: building an events.k8s.io/v1
// Event from a call and handing it to the sink without ever waiting.

// The limits the API server puts on an Event's fields.
const (
	maxEventReasonLen = 128
	maxEventActionLen = 128
	maxEventNoteLen   = 1024
)

// Severity is an Event's type field: whether it reports something normal
// or something to look at. The API server accepts exactly the two values
// below. (A watch event's type is another thing: [kube.EventType].)
type Severity string

// The two severities an Event can have.
const (
	Normal  Severity = "Normal"
	Warning Severity = "Warning"
)

// EventRecorder records events.k8s.io/v1 Events about objects on behalf of
// one reporting controller. It is safe for concurrent use and never
// blocks: events go through a bounded buffer to the manager's event
// writer, which runs while the manager runs; when the buffer is full an
// event is dropped and counted (kubeloop_events_dropped_total).
//
// The writer deduplicates and rate-limits, as client-go's event
// broadcaster and spam filter do:
//
//   - An event like one recorded within the last 6 minutes (same
//     reporting controller, object, reason, action and type; the note may
//     differ and the first one is kept) is not written again: the existing
//     Event's series count and lastObservedTime are updated instead.
//   - Writes about one object with one reason draw from a token bucket of
//     25, refilled one every 5 minutes. A write that finds no token waits
//     for one, while further repeats only raise the count it will write:
//     a reconcile loop gone hot costs the API server at most 25 writes,
//     then one per 5 minutes, and the count stays exact.
type EventRecorder struct {
	sink       *eventSink
	controller string // reportingController
	instance   string // reportingInstance
}

// GetEventRecorderFor returns a recorder whose events carry
// reportingController name (for example "example.com/widget-controller")
// and reportingInstance name-HOSTNAME.
func (m *Manager) GetEventRecorderFor(name string) *EventRecorder {
	if !m.made() {
		return nil // a nil *EventRecorder drops every event
	}
	return &EventRecorder{sink: m.events, controller: name, instance: name + "-" + m.events.hostname()}
}

// Eventf records an event about regarding: severity is [Normal] or
// [Warning]; reason (why, "Synced") and action (what was done
// or failed, "Reconcile") are short CamelCase words; the note is
// fmt.Sprintf(noteFmt, args...), cut to 1 KiB. The event's time is now.
// An event that the API server would refuse (no object, a wrong type, an
// empty or too long reason or action) is dropped, logged and counted.
func (r *EventRecorder) Eventf(regarding kube.Object, severity Severity, reason, action, noteFmt string, args ...any) {
	if r == nil || r.sink == nil {
		return // not from a manager: nowhere to send it
	}
	ev, err := r.build(regarding, severity, reason, action, fmt.Sprintf(noteFmt, args...), time.Now())
	if err != nil {
		r.sink.log.Info("event dropped", "controller", r.controller, "err", err)
		r.sink.dropped.Inc("invalid")
		return
	}
	r.sink.enqueue(ev)
}

// build makes the Event, without a name (the writer names it).
func (r *EventRecorder) build(regarding kube.Object, severity Severity, reason, action, note string, now time.Time) (kube.Event, error) {
	var errs []error
	if regarding == nil {
		return kube.Event{}, errors.New("record event: regarding object is nil")
	}
	meta, gvk := regarding.GetObjectMeta(), regarding.GroupVersionKind()
	if meta.Name == "" || gvk.Kind == "" {
		errs = append(errs, fmt.Errorf("regarding %T has no name or kind", regarding))
	}
	if severity != Normal && severity != Warning {
		errs = append(errs, fmt.Errorf("type %q must be Normal or Warning", severity))
	}
	if reason == "" || len(reason) > maxEventReasonLen {
		errs = append(errs, fmt.Errorf("reason %q must have 1 to %d characters", reason, maxEventReasonLen))
	}
	if action == "" || len(action) > maxEventActionLen {
		errs = append(errs, fmt.Errorf("action %q must have 1 to %d characters", action, maxEventActionLen))
	}
	if err := errors.Join(errs...); err != nil {
		return kube.Event{}, fmt.Errorf("record event: %w", err)
	}
	ns := meta.Namespace
	if ns == "" {
		ns = "default" // the home of events about cluster-scoped objects, as in client-go
	}
	return kube.Event{
		TypeMeta:            kube.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:          kube.ObjectMeta{Namespace: ns},
		EventTime:           kube.MicroTime{Time: now},
		ReportingController: r.controller,
		ReportingInstance:   r.instance,
		Action:              action,
		Reason:              reason,
		Type:                string(severity),
		Note:                truncateUTF8(note, maxEventNoteLen),
		Regarding: kube.ObjectReference{APIVersion: gvk.APIVersion(), Kind: gvk.Kind,
			Namespace: meta.Namespace, Name: meta.Name, UID: meta.UID, ResourceVersion: meta.ResourceVersion},
	}, nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// eventName returns a fresh name for an Event about the object named
// name: the name made a valid DNS subdomain, a dot, and 16 random hex
// digits (client-go uses a timestamp; a random suffix cannot collide when
// events are recorded in the same instant). generateName is not used:
// the server would refuse "name." as a prefix.
func eventName(name string) string {
	const suffixLen = 17 // "." and 16 hex digits
	var labels []string
	for _, label := range strings.Split(strings.ToLower(name), ".") {
		label = strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' {
				return r
			}
			return '-'
		}, label)
		if label = strings.Trim(label, "-"); label != "" {
			labels = append(labels, label)
		}
	}
	base := strings.Join(labels, ".")
	if len(base) > 253-suffixLen {
		base = strings.TrimRight(base[:253-suffixLen], "-.")
	}
	if base == "" {
		base = "event"
	}
	return fmt.Sprintf("%s.%016x", base, rand.Uint64())
}

// hostname returns the host's name for reportingInstance, or "unknown".
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}
