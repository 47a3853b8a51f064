// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"encoding/json"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is what the real server's apply does for the manager
// "kubectl" beyond a plain apply: the client-side to server-side apply
// migration, where fields its kubectl.kubernetes.io/last-applied-configuration
// annotation set (and that still have those values) are taken from other
// managers without a conflict, and that annotation kept equal to the
// configuration applied.

// ApplyKubectl is apply, with what the real server does for the manager
// "kubectl": conflicts on fields its last-applied annotation set, with
// the values they still have, are forced, and the annotation follows the
// configuration.
func (fm *Manager) ApplyKubectl(live, config obj, manager string, force bool) (obj, []*Entry, *ApplyError) {
	entries := storedManagedFields(unstructured.Metadata(live))
	next, out, err := fm.Apply(live, config, cloneEntries(entries), manager, force)
	if err != nil && err.Internal == "" && manager == "kubectl" && !force {
		if allowed := fm.lastAppliedFields(live); allowed != nil {
			var rest []Conflict
			for _, cf := range err.Conflicts {
				if !allowed.has(cf.Path...) {
					rest = append(rest, cf)
				}
			}
			if len(rest) > 0 {
				return nil, nil, &ApplyError{Conflicts: rest}
			}
			next, out, err = fm.Apply(live, config, cloneEntries(entries), manager, true)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if manager == "kubectl" {
		UpdateLastApplied(next, config)
	}
	return next, out, nil
}

// lastAppliedFields returns the fields of live's last-applied annotation
// whose values live still has; nil when there is no usable annotation.
func (fm *Manager) lastAppliedFields(live obj) *fieldSet {
	ann, _ := unstructured.StringMap(unstructured.Metadata(live), "annotations")
	raw := ann[lastAppliedAnnotation]
	if raw == "" {
		return nil
	}
	la, err := unstructured.DecodeObjectOrNull([]byte(raw))
	if err != nil || la == nil || unstructured.String(la, "apiVersion") != fm.APIVersion {
		return nil
	}
	fs, err := toFieldSet(fm.Schema, la)
	if err != nil {
		return nil
	}
	c, err := compareObjects(fm.Schema, la, withoutManaged(live), false, fm.typed())
	if err != nil {
		return nil
	}
	return fs.difference(c.modified).difference(c.added).difference(c.removed)
}

const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// maxAnnotationsSize is the most the annotations of an object may hold.
const maxAnnotationsSize = 256 << 10

// UpdateLastApplied sets o's last-applied annotation, when it has one, to
// the applied configuration (without that annotation), as JSON; it drops
// the annotation when the annotations would then be too large.
func UpdateLastApplied(o, config obj) {
	meta := unstructured.Metadata(o)
	ann, _ := meta["annotations"].(obj)
	if s, _ := ann[lastAppliedAnnotation].(string); s == "" {
		return
	}
	c := unstructured.DeepCopy(config).(obj)
	if cm, ok := c["metadata"].(obj); ok {
		if ca, ok := cm["annotations"].(obj); ok {
			delete(ca, lastAppliedAnnotation)
		}
	}
	raw, err := json.Marshal(c)
	if err != nil { // values come from encoding/json: always encodable
		panic("kubetest: encode value: " + err.Error())
	}
	ann = unstructured.DeepCopy(ann).(obj)
	ann[lastAppliedAnnotation] = string(raw) + "\n"
	size := 0
	for k, v := range ann {
		s, _ := v.(string)
		size += len(k) + len(s)
	}
	if size > maxAnnotationsSize {
		delete(ann, lastAppliedAnnotation)
	}
	meta["annotations"] = ann
}
