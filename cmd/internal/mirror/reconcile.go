// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// FieldManager owns the fields of every copy (server-side apply).
const FieldManager = "kubeloop-mirror"

// indexCopyOf indexes the cached copies of a kind by their source
// ("namespace/name"), so that a reconcile finds them without scanning.
const indexCopyOf = "mirror.copy-of"

// maxLabelValue is the longest a label value can be: a source with a
// longer name cannot be named by its copies' labels.
const maxLabelValue = 63

// Recorder records Events about sources; a *manager.EventRecorder is one.
type Recorder interface {
	// Eventf records an event of severity manager.Normal or
	// manager.Warning regarding obj, with the note
	// fmt.Sprintf(noteFmt, args...).
	Eventf(regarding kube.Object, severity manager.Severity, reason, action, noteFmt string, args ...any)
}

// reconciler mirrors the sources of one kind. A request names a source
// (never a copy: the handlers map copies to their source).
//
// Each reconcile reads the source's metadata, the copies and the
// namespaces from the cache, and, when there are copies to write, the
// source's content from the API server: one GET, then one server-side
// apply per target namespace (the server writes nothing when the copy is
// unchanged), and one DELETE per copy no longer wanted.
type reconciler struct {
	kind   kind
	cache  *cache.Cache // metadata of sources, copies and namespaces
	client *kube.Client // the source's content, and every write
	events Recorder
	log    *slog.Logger // for the event handlers; reconciles log through ctx
	// namespace limits sources to one namespace; "" means all.
	namespace string
}

// Reconcile implements [controller.Reconciler].
func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if r.namespace != "" && req.Namespace != r.namespace {
		return controller.Result{}, nil
	}
	src := r.kind.meta()
	err := r.cache.Get(ctx, req.Key, src)
	switch {
	case kube.IsNotFound(err):
		// Gone without its finalizer (removed by hand, or never added):
		// delete what is left of its copies.
		return controller.Result{}, r.prune(ctx, req.Key, nil, &changes{})
	case err != nil:
		return controller.Result{}, err
	case isCopy(&src.ObjectMeta):
		return controller.Result{}, nil
	case src.DeletionTimestamp != nil || !isSource(&src.ObjectMeta):
		// Deleted, or no longer asking for copies: copies first, then
		// the finalizer, so that no copy outlives its source.
		var ch changes
		err := r.prune(ctx, req.Key, nil, &ch)
		r.tell(src, &ch)
		if err != nil {
			return controller.Result{}, err
		}
		return r.setFinalizer(ctx, src, false)
	}

	spec, err := parseTargets(src.Annotations)
	if err != nil {
		// Keep the copies as they are: a typo must not delete them.
		r.events.Eventf(src, manager.Warning, "InvalidAnnotation", "Mirror", "%v", err)
		return controller.Result{}, controller.TerminalError(err)
	}
	if len(src.Name) > maxLabelValue {
		err := errs.Errorf("cannot mirror %s: its name is longer than %d characters, the most label %s can hold", src.Key(), maxLabelValue, LabelOfName)
		r.events.Eventf(src, manager.Warning, "NameTooLong", "Mirror", "%v", err)
		return controller.Result{}, controller.TerminalError(err)
	}
	namespaces := namespaceMetaList()
	if err := r.cache.List(ctx, namespaces, kube.ListOptions{}); err != nil {
		return controller.Result{}, err
	}
	want := targets(spec, src.Namespace, namespaces.Items)
	if res, err := r.setFinalizer(ctx, src, true); err != nil || !res.IsZero() {
		return res, err
	}
	var ch changes
	var errs []error
	if len(want) > 0 {
		errs = append(errs, r.copyAll(ctx, src, want, &ch))
	}
	errs = append(errs, r.prune(ctx, req.Key, want, &ch))
	r.tell(src, &ch)
	return controller.Result{}, errors.Join(errs...)
}

// changes is what a reconcile did to the copies of a source, by namespace.
type changes struct {
	created, updated, deleted []string
	taken                     []string // held by an object that is not a copy
	failed                    []string // refused by the server
}

// tell records one Event per kind of change. One per copy would not do:
// the Recorder folds events that differ only in their note into one
// series, so all but the first namespace would be lost.
func (r *reconciler) tell(src *kube.PartialObjectMetadata, ch *changes) {
	what := fmt.Sprintf("%s %s", r.kind.lower(), src.Key())
	for _, c := range []struct {
		severity          manager.Severity
		reason, one, many string // one and many are formats of what and the namespaces
		namespaces        []string
	}{
		{manager.Normal, "Created", "created copy of %s in %s", "created copies of %s in %s", ch.created},
		{manager.Normal, "Updated", "updated copy of %s in %s", "updated copies of %s in %s", ch.updated},
		{manager.Normal, "Deleted", "deleted copy of %s in %s", "deleted copies of %s in %s", ch.deleted},
		{manager.Warning, "NameTaken", "not copying %s to %s: an object that is not its copy has the name there",
			"not copying %s to %s: objects that are not its copies have the name there", ch.taken},
		{manager.Warning, "CopyFailed", "failed to copy %s to %s (see the logs)", "failed to copy %s to %s (see the logs)", ch.failed},
	} {
		switch len(c.namespaces) {
		case 0:
		case 1:
			r.events.Eventf(src, c.severity, c.reason, "Mirror", c.one, what, c.namespaces[0])
		default:
			r.events.Eventf(src, c.severity, c.reason, "Mirror", c.many, what, strings.Join(c.namespaces, ", "))
		}
	}
}

// copyAll writes the copies of src into the namespaces of want.
func (r *reconciler) copyAll(ctx context.Context, src *kube.PartialObjectMetadata, want []string, ch *changes) error {
	full := r.kind.full()
	if err := r.client.Get(ctx, src.Key(), full); err != nil {
		if kube.IsNotFound(err) {
			return nil // deleted since the cache saw it: its event is on the way
		}
		return err
	}
	var errs []error
	for _, ns := range want {
		errs = append(errs, r.copyTo(ctx, src, full, ns, ch))
	}
	return errors.Join(errs...)
}

// copyTo writes the copy of full into namespace ns, unless an object that
// is not its copy holds the name there.
func (r *reconciler) copyTo(ctx context.Context, src *kube.PartialObjectMetadata, full *kube.Unstructured, ns string, ch *changes) error {
	key := kube.Key{Namespace: ns, Name: src.Name}
	existing := r.kind.meta()
	err := r.cache.Get(ctx, key, existing)
	found := err == nil
	switch {
	case err != nil && !kube.IsNotFound(err):
		return err
	case found:
		if of, ok := sourceOf(&existing.ObjectMeta, r.kind.name()); !ok || of != src.Key() {
			ch.taken = append(ch.taken, ns)
			return errs.Errorf("copy %s %s to %s: %s %s exists and is not its copy", r.kind.lower(), src.Key(), ns, r.kind.name(), key)
		}
	}
	c := r.kind.copyOf(full, ns)
	err = r.client.Apply(ctx, c, kube.ApplyOptions{FieldManager: FieldManager, Force: true})
	if found && kube.IsInvalid(err) {
		// The server refuses to change the copy in place: an immutable
		// Secret or ConfigMap whose source changed, or a Secret whose
		// type did. Make it again.
		if err = r.delete(ctx, existing); err == nil {
			c = r.kind.copyOf(full, ns)
			err = r.client.Apply(ctx, c, kube.ApplyOptions{FieldManager: FieldManager, Force: true})
			found = false
		}
	}
	switch {
	case err != nil:
		ch.failed = append(ch.failed, ns)
		return errs.Errorf("copy %s %s to %s: %w", r.kind.lower(), src.Key(), ns, err)
	case !found:
		ch.created = append(ch.created, ns)
	case c.ResourceVersion != existing.ResourceVersion:
		ch.updated = append(ch.updated, ns)
	}
	return nil
}

// prune deletes the copies of the source at key that are not in the
// namespaces of keep, and notes them in ch.
func (r *reconciler) prune(ctx context.Context, key kube.Key, keep []string, ch *changes) error {
	copies := r.kind.metaList()
	sel := kube.FieldSelectorFromSet(map[string]string{indexCopyOf: key.String()})
	if err := r.cache.List(ctx, copies, kube.ListOptions{FieldSelector: sel}); err != nil {
		return err
	}
	var errs []error
	for i := range copies.Items {
		c := &copies.Items[i]
		if slices.Contains(keep, c.Namespace) {
			continue
		}
		if err := r.delete(ctx, c); err != nil {
			errs = append(errs, err)
			continue
		}
		ch.deleted = append(ch.deleted, c.Namespace)
	}
	slices.Sort(ch.deleted)
	return errors.Join(errs...)
}

// delete deletes the copy c, as the cache saw it: the uid precondition
// keeps it from deleting an object made since under the same name. An
// object already gone is not an error.
func (r *reconciler) delete(ctx context.Context, c *kube.PartialObjectMetadata) error {
	uid := c.UID
	err := r.client.Delete(ctx, c, kube.DeleteOptions{Preconditions: &kube.Preconditions{UID: &uid}})
	if err != nil && !kube.IsNotFound(err) && !kube.IsConflict(err) {
		return err
	}
	return nil
}

// setFinalizer adds or removes the mirror's finalizer on src. The patch
// carries src's resourceVersion, so it fails on a source that changed since
// the cache saw it; the reconcile is then queued again (the cache is about
// to catch up).
func (r *reconciler) setFinalizer(ctx context.Context, src *kube.PartialObjectMetadata, on bool) (controller.Result, error) {
	m := src.ObjectMeta // a copy: src stays as read
	m.Finalizers = slices.Clone(m.Finalizers)
	if on && !m.AddFinalizer(Finalizer) || !on && !m.RemoveFinalizer(Finalizer) {
		return controller.Result{}, nil
	}
	type patchMeta struct {
		Finalizers      []string `json:"finalizers"`
		ResourceVersion string   `json:"resourceVersion"`
	}
	body, err := json.Marshal(struct {
		Metadata patchMeta `json:"metadata"`
	}{patchMeta{Finalizers: m.Finalizers, ResourceVersion: m.ResourceVersion}})
	if err != nil {
		return controller.Result{}, err
	}
	obj := r.kind.meta()
	obj.Namespace, obj.Name = src.Namespace, src.Name
	err = r.client.Patch(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: body})
	switch {
	case kube.IsConflict(err):
		return controller.RequeueRateLimited(), nil
	case kube.IsNotFound(err):
		return controller.Result{}, nil // gone: nothing to hold
	case err != nil:
		return controller.Result{}, err
	}
	return controller.Result{}, nil
}
