// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// This file names the Kubernetes minors a Server acts as
// (Options.Minor); what changes with them is internal/minor's table
// (and internal/kinds' for the resources served).

// Minors a Server can act as: OldestMinor to NewestMinor of Kubernetes 1.
const (
	OldestMinor = 33
	NewestMinor = 37
)

// errUIDPreconditionOnAbsent is 1.33's answer to a PUT carrying uid of an
// object that does not exist: storage's precondition error on an empty
// object, as a Conflict. The key is the etcd key of the generic
// registry (resource, or group and resource for custom ones, then
// namespace and name).
func errUIDPreconditionOnAbsent(res *resource, namespace, name, uid string) *kube.StatusError {
	key := "/registry/" + res.Plural
	if res.CRD != "" {
		key = "/registry/" + res.Group + "/" + res.Plural
	}
	if namespace != "" {
		key += "/" + namespace
	}
	return apierr.Conflict(res.Group, res.Plural, name, fmt.Sprintf("StorageError: invalid object, Code: 4, Key: %s/%s, ResourceVersion: 0, "+
		"AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object meta: ", key, name, uid))
}

// resolveMinor returns the minor Options.Minor names (zero: NewestMinor),
// or an error naming the minors served.
func resolveMinor(minor int) (int, error) {
	if minor == 0 {
		return NewestMinor, nil
	}
	if minor < OldestMinor || minor > NewestMinor {
		return 0, fmt.Errorf("kubetest: Options.Minor %d is not a minor kubetest acts as: it acts as Kubernetes 1.%d to 1.%d",
			minor, OldestMinor, NewestMinor)
	}
	return minor, nil
}
