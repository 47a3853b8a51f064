// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file gives internal/admission's flow a client's write (admitting)
// and what that write stores whatever object it is given (pinned).

// admitting is a client's write by store as the admission flow sees it
// (admission.Write, admission.Deletion).
type admitting struct {
	s     *Server
	wr    *write
	store writeFunc
}

func (a admitting) Lock(fn func())                             { a.s.withLock(fn) }
func (a admitting) Caller() admission.Caller                   { return a.s.caller(a.wr.call) }
func (a admitting) IsApply() bool                              { return a.wr.apply }
func (a admitting) HooksLocked() ([]admission.Webhook, string) { return a.s.webhooksLocked(), a.wr.sub }

func (a admitting) CurrentLocked() *record {
	return a.wr.col.objects[objectKey(a.wr.namespace, a.wr.name)]
}

func (a admitting) RequestLocked(create bool, prev *record) *admission.Request {
	return a.s.admissionRequestLocked(a.wr, create, prev)
}

func (a admitting) Sent(out updateResult, forMutation bool) map[string]any {
	return a.s.reviewed(a.wr.res, out.rec, forMutation)
}

func (a admitting) BypassLocked(o obj) (updateResult, *kube.StatusError, bool) {
	switch {
	case isWebhookConfiguration(a.wr.res):
		out, err := a.s.storeConfigurationLocked(a.wr, o, a.store)
		return out, err, true
	case a.wr.call == nil:
		out, err := a.store(a.wr, o)
		return out, err, true
	}
	return updateResult{}, nil, false
}

func (a admitting) StoreLocked(o obj, m *admission.Mutation, dry bool) (updateResult, *kube.StatusError) {
	store := a.store
	if m != nil {
		store = a.s.writeMutated(m.Object, m.Create, o, m.DryRan)
	}
	if dry {
		return dryRun(a.wr, o, store)
	}
	return store(a.wr, o)
}

func (a admitting) PinUID(create bool) {
	if create || a.wr.apply || a.wr.res.CreateOnUpdate {
		a.wr.pinned.UID = strategy.NewUID() // the object's uid in every step, if it is created
	}
}

func (a admitting) PinManaged(out updateResult) {
	a.wr.pinned.Managed, a.wr.pinned.ManagedFields = true, unstructured.Metadata(mustDecode(out.rec.raw))["managedFields"]
}

func (a admitting) DeleteHooksLocked(prev *record) []admission.Webhook {
	if prev == nil || a.wr.call == nil || isWebhookConfiguration(a.wr.res) {
		return nil
	}
	return a.s.webhooksLocked()
}

// storeConfigurationLocked writes a webhook configuration unless
// admission.Check refuses what the write would store.
func (s *Server) storeConfigurationLocked(wr *write, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	candidate, err := dryRun(wr, o, store)
	if err == nil {
		o := s.reviewed(wr.res, candidate.rec, false)
		if errs := admission.Check(o); len(errs) > 0 {
			err = apierr.Invalid(wr.res.KindGroup(), wr.res.Kind, unstructured.String(unstructured.Metadata(o), "name"), errs)
		}
	}
	if err != nil {
		return updateResult{}, err
	}
	return store(wr, o)
}

// dryRun makes wr's write as a dry run, on a copy of o.
func dryRun(wr *write, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	dry := *wr
	dry.dryRun = true
	return store(&dry, unstructured.DeepCopy(o).(obj))
}

// writeMutated is the write of the object the mutating webhooks made: a
// create, or an update that keeps the managedFields the request's own
// write gave it (the webhooks' fields are nobody's, as on the real
// server) when they were sent its dry run (dryRan), else an update by
// the request's manager. For an apply that creates, config is the
// configuration.
func (s *Server) writeMutated(mutated obj, create bool, config obj, dryRan bool) writeFunc {
	return func(wr *write, _ obj) (updateResult, *kube.StatusError) {
		o := unstructured.DeepCopy(mutated).(obj)
		if create {
			if wr.apply {
				wr.applied = config
			}
			rec, err := s.createLocked(wr, o)
			return updateResult{rec: rec, created: true}, err
		}
		if !dryRan {
			return s.updateLocked(wr, o, nil)
		}
		managed, has := unstructured.Metadata(o)["managedFields"]
		return s.updateLocked(wr, o, func(meta, _, _ obj, _ string) {
			if has {
				meta["managedFields"] = managed
			} else {
				delete(meta, "managedFields")
			}
		})
	}
}

// pinned is what a create stores whatever the object (admission.Pin).
type pinned = admission.Pin

// pin gives the metadata of an object being created what wr pins.
func (wr *write) pin(meta obj) { wr.pinned.Apply(meta) }
