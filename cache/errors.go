// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"errors"
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
)

// ErrNotSynced is what [errors.Is] finds in a [*NotSyncedError].
var ErrNotSynced = errors.New("cache not synced")

// NotSyncedError says a read or a wait hit a kind whose informer has not
// read the server's state yet.
type NotSyncedError struct {
	Kind kube.GroupVersionKind
	// Cause is why the wait ended (the context's error), or nil when the
	// cache was not started.
	Cause error
	// LastError is the informer's last list or watch failure, if any: the
	// likely reason it has not synced (a missing RBAC rule, a wrong kind).
	LastError error
}

func (e *NotSyncedError) Error() string {
	msg := fmt.Sprintf("cache for %s (%s) not synced", e.Kind.Kind, e.Kind.APIVersion())
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	if e.LastError != nil {
		msg += " (last error: " + e.LastError.Error() + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrNotSynced) true.
func (e *NotSyncedError) Is(target error) bool { return target == ErrNotSynced }

// Unwrap returns the cause, so that errors.Is(err, context.DeadlineExceeded)
// works too.
func (e *NotSyncedError) Unwrap() error { return e.Cause }

// ErrNotAllowed is what [errors.Is] finds in a [*NotAllowedError].
var ErrNotAllowed = errors.New("read outside the cache's scope")

// NotAllowedError says a read asked for something the cache does not
// hold by configuration: a namespace outside [Options.Namespaces], or a
// kind not declared in a cache that only serves declared kinds.
type NotAllowedError struct {
	Kind      kube.GroupVersionKind
	Namespace string // empty when the kind is what is not allowed
	Reason    string
}

func (e *NotAllowedError) Error() string {
	if e.Namespace != "" {
		return fmt.Sprintf("cache for %s: namespace %q not allowed: %s", e.Kind.Kind, e.Namespace, e.Reason)
	}
	return fmt.Sprintf("cache for %s not allowed: %s", e.Kind.Kind, e.Reason)
}

// Is makes errors.Is(err, ErrNotAllowed) true.
func (e *NotAllowedError) Is(target error) bool { return target == ErrNotAllowed }
