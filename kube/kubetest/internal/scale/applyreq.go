// SPDX-License-Identifier: Apache-2.0

package scale

import (
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// ReadApply reads the Scale apply r by fieldManager for t: its
// configuration ([ParseApply]; a missing fieldManager is refused before
// the body is read) and the configuration of the scaled object it makes
// ([ApplyParent]).
func ReadApply(r *http.Request, fieldManager string, t Target) (config, parent map[string]any, err *kube.StatusError) {
	var body []byte
	if fieldManager != "" { // its absence is refused first
		body, err = media.ReadBody(r)
	}
	if err == nil {
		config, err = ParseApply(fieldManager, body)
	}
	if err == nil {
		parent, err = ApplyParent(config, t)
	}
	return config, parent, err
}

// ApplyError is the answer to a Scale apply of config when it is not the
// Scale: applied's error, its conflicts worded on the Scale ([Conflict]);
// for a custom resource, the real server's 500 failing to convert the
// Scale (unowned: the live object's replicas have no manager, found
// before the apply). nil when the Scale is the answer.
func ApplyError(applied *kube.StatusError, custom, unowned bool, config map[string]any, t Target) *kube.StatusError {
	switch {
	case unowned:
		return ErrConvert("failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale)")
	case applied != nil:
		return Conflict(applied, t)
	case custom:
		return ErrConvert(fmt.Sprintf("failed to convert new object (%s/%s; autoscaling/v1, Kind=Scale)",
			unstructured.String(unstructured.Metadata(config), "namespace"), t.Name))
	}
	return nil
}
