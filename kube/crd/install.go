// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Install creates each CRD, or updates the CRD of that name to it, then
// waits until every one is Established with its names accepted (see
// [WaitEstablished]) and the client's discovery lists the kind of each
// served version, so that objects of the kinds can be used, and their
// kinds resolved, when it returns. It is meant for start-up, before a manager starts its caches:
//
//	if err := crd.Install(ctx, client, widgetCRD); err != nil { ... }
//
// An update replaces the CRD's spec, labels and annotations with those
// given (fields others set on the server, such as an injected caBundle,
// are lost): keep one owner per CRD. The resourceVersion is taken from the
// server, and a conflicting write is retried with [kube.RetryOnConflict].
// Each crd is filled with what the server stored. Install waits as long
// as ctx allows: give it a deadline.
func Install(ctx context.Context, c *kube.Client, crds ...*CustomResourceDefinition) error {
	return install(ctx, c, nil, crds)
}

// install is Install, saying at info level on log (nil: nowhere) what it
// did to each CRD and when each is established.
func install(ctx context.Context, c *kube.Client, log *slog.Logger, crds []*CustomResourceDefinition) error {
	for _, crd := range crds {
		did, err := createOrUpdate(ctx, c, crd)
		if err != nil {
			return err
		}
		if log != nil {
			log.Info(did+" CRD", "crd", crd.Name, "rv", crd.ResourceVersion)
		}
	}
	for _, crd := range crds {
		if err := WaitEstablished(ctx, c, crd.Name); err != nil {
			return err
		}
		if err := waitDiscovered(ctx, c, crd); err != nil {
			return err
		}
		if log != nil {
			log.Info("CRD established", "crd", crd.Name)
		}
	}
	return nil
}

// waitDiscovered waits until c's discovery lists the kind of every
// version crd serves. A CRD is Established before kube-apiserver's
// discovery lists its kind (both servers were seen answering a lookup
// with no such kind just after), and a controller's start resolves its
// kinds (an owner's scope, say) through discovery: without the wait it
// could fail on a kind that is about to be served. Each miss refreshes
// c's discovery; the pause between lookups grows to a second.
func waitDiscovered(ctx context.Context, c *kube.Client, crd *CustomResourceDefinition) error {
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvk := kube.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		for retry := 20 * time.Millisecond; ; retry = min(2*retry, time.Second) {
			_, err := c.Mapping(ctx, gvk)
			var missing *kube.NoKindMatchError
			if !errors.As(err, &missing) {
				if err != nil {
					return fmt.Errorf("wait for discovery to list %s: %w", gvk.Kind, err)
				}
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("wait for discovery to list %s %s: %w", gvk.APIVersion(), gvk.Kind, ctx.Err())
			case <-time.After(retry):
			}
		}
	}
	return nil
}

// createOrUpdate writes crd and says what it did: "created", "updated",
// or "unchanged" when the server stored an update as a no-op (the
// resourceVersion did not move).
func createOrUpdate(ctx context.Context, c *kube.Client, crd *CustomResourceDefinition) (string, error) {
	crd.ResourceVersion, crd.UID = "", "" // a CRD installed before is created afresh or updated
	err := c.Create(ctx, crd)
	if !kube.IsAlreadyExists(err) {
		if err != nil {
			return "", fmt.Errorf("install CRD %s: %w", crd.Name, err)
		}
		return "created", nil
	}
	var before string
	err = kube.RetryOnConflict(ctx, func() error {
		cur := &kube.PartialObjectMetadata{}
		cur.SetGroupVersionKind(crd.GroupVersionKind())
		if err := c.Get(ctx, kube.Key{Name: crd.Name}, cur); err != nil {
			return err
		}
		crd.ResourceVersion, crd.UID = cur.ResourceVersion, cur.UID
		before = cur.ResourceVersion
		return c.Update(ctx, crd)
	})
	if err != nil {
		return "", fmt.Errorf("install CRD %s: %w", crd.Name, err)
	}
	if crd.ResourceVersion == before {
		return "unchanged", nil
	}
	return "updated", nil
}

// crdState is what waiting reads of a CRD: its names and status, not its
// schema.
type crdState struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Names Names `json:"names"`
	} `json:"spec"`
	Status Status `json:"status"`
}

func (*crdState) GroupVersionKind() kube.GroupVersionKind {
	return (*CustomResourceDefinition)(nil).GroupVersionKind()
}

// errNotReady is checkEstablished's answer while the server is still at
// work.
var errNotReady = errors.New("not yet established")

// checkEstablished returns nil when the CRD is served under the names of
// its spec, errNotReady while it may still become so, and an error that
// says why when it will not: its names conflict with another resource's
// (NamesAccepted False, with the server's message), its schema is not
// structural, or it is being deleted.
func checkEstablished(s *crdState) error {
	conds := s.Status.Conditions
	switch {
	case s.DeletionTimestamp != nil || kube.IsStatusConditionTrue(conds, Terminating):
		return errors.New("it is being deleted")
	case kube.IsStatusConditionFalse(conds, NamesAccepted):
		return fmt.Errorf("its names are not accepted: %s", describeCondition(kube.FindStatusCondition(conds, NamesAccepted)))
	case kube.IsStatusConditionTrue(conds, NonStructuralSchema):
		return fmt.Errorf("its schema is not structural: %s", describeCondition(kube.FindStatusCondition(conds, NonStructuralSchema)))
	case kube.IsStatusConditionTrue(conds, Established) &&
		s.Status.AcceptedNames.Plural == s.Spec.Names.Plural && s.Status.AcceptedNames.Kind == s.Spec.Names.Kind:
		return nil
	}
	return errNotReady
}

func describeCondition(c *kube.Condition) string {
	if c == nil {
		return "no condition"
	}
	s := c.Type + "=" + string(c.Status)
	if c.Reason != "" {
		s += " " + c.Reason
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// WaitEstablished waits until the CRD named name is Established, with the
// names of its spec accepted, and returns nil; or returns an error as soon
// as the server says it will not be (its names conflict with another
// resource's, with the server's message; its schema is not structural; it
// is being deleted or is gone), or when ctx is done (the error then gives
// the conditions last seen). It reads the CRD, then watches it from that
// version, and reads it again when a watch ends.
func WaitEstablished(ctx context.Context, c *kube.Client, name string) error {
	var last *crdState
	fail := func(err error) error {
		if err == nil {
			return nil
		}
		if last != nil && errors.Is(err, ctx.Err()) {
			var seen []string
			for i := range last.Status.Conditions {
				seen = append(seen, describeCondition(&last.Status.Conditions[i]))
			}
			return fmt.Errorf("wait for CRD %s to be established: %w (conditions last seen: %s)", name, err, strings.Join(seen, "; "))
		}
		return fmt.Errorf("wait for CRD %s to be established: %w", name, err)
	}
	retry := 50 * time.Millisecond
	for {
		cur := &crdState{}
		if err := c.Get(ctx, kube.Key{Name: name}, cur); err != nil {
			return fail(err)
		}
		last = cur
		if err := checkEstablished(cur); err != errNotReady {
			return fail(err)
		}
		err := watchUntilEstablished(ctx, c, name, cur.ResourceVersion, &last)
		if err != errNotReady {
			return fail(err)
		}
		// The watch ended before an answer: read again, after a pause that
		// grows so that a server refusing watches is not hammered.
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(retry):
		}
		retry = min(2*retry, 2*time.Second)
	}
}

// watchUntilEstablished watches the CRD from rv until checkEstablished
// gives an answer, which it returns; errNotReady when the watch ended
// first, ctx's error when ctx is done.
func watchUntilEstablished(ctx context.Context, c *kube.Client, name, rv string, last **crdState) error {
	opts := kube.NewListOptions(kube.MatchingFields{"metadata.name": name})
	opts.ResourceVersion = rv
	w, err := c.Watch(ctx, (*crdState)(nil).GroupVersionKind(), opts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errNotReady
	}
	defer w.Stop()
	for {
		ev, err := w.Next()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return errNotReady // ended (io.EOF), expired (410) or broken: read afresh
		case ev.Type == kube.Deleted:
			return errors.New("it was deleted")
		case ev.Type != kube.Added && ev.Type != kube.Modified:
			continue
		}
		cur := &crdState{}
		if err := ev.Decode(cur); err != nil {
			return errNotReady
		}
		*last = cur
		if err := checkEstablished(cur); err != errNotReady {
			return err
		}
	}
}
