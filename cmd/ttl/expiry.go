// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file decides when an object expires. Nothing here does I/O.

// AnnotationTTL is how long an object lives after its creation, as a Go
// duration: "90s", "1h", "72h".
const AnnotationTTL = "kubeloop.dev/ttl"

// errNoTTL says an object has no TTL annotation.
var errNoTTL = errors.New("no " + AnnotationTTL + " annotation")

// hasTTL reports whether obj carries the annotation, valid or not.
func hasTTL(obj kube.Object) bool {
	_, ok := obj.GetObjectMeta().Annotations[AnnotationTTL]
	return ok
}

// timeLeft returns how long the object m describes has to live at now:
// zero or less means it is due. The error is errNoTTL without the
// annotation, and names the value when it is not a duration of zero or
// more, or when the object has no creationTimestamp.
func timeLeft(m *kube.ObjectMeta, now time.Time) (time.Duration, error) {
	v, ok := m.Annotations[AnnotationTTL]
	if !ok {
		return 0, errNoTTL
	}
	ttl, err := time.ParseDuration(strings.TrimSpace(v))
	switch {
	case err != nil:
		return 0, fmt.Errorf("annotation %s %q: not a duration such as 90s, 1h or 72h", AnnotationTTL, v)
	case ttl < 0:
		return 0, fmt.Errorf("annotation %s %q: negative", AnnotationTTL, v)
	case m.CreationTimestamp.IsZero():
		return 0, errors.New("object has no creationTimestamp")
	}
	return m.CreationTimestamp.Add(ttl).Sub(now), nil
}
