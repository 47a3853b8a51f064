// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the permissions check Start makes first when
// Options.Permissions is set: one SelfSubjectAccessReview per verb,
// resource and namespace the manager's own parts will use.

// Permissions is what Options.Permissions holds: a [PermissionsCheck].
type Permissions interface {
	checkPermissions(ctx context.Context, m *Manager) error
}

// PermissionsCheck makes [Manager.Start] check, before it opens or starts
// anything, that the manager may do what its own parts will do: list and
// watch every kind its cache holds (in the namespaces it is limited to,
// or in all), get, create and update the leader election Lease, and
// create and patch Events (where the cache watches). It asks the API
// server with one SelfSubjectAccessReview per verb, resource and
// namespace, as kubectl auth can-i does (every authenticated user may
// create them), one after the other. When any is denied, Start returns an
// error that lists each missing permission as RBAC rules to add, in YAML,
// and starts nothing. What a reconciler writes is not checked: only the
// program knows it (kube/kubetest's Server.Roles records it from tests);
// nor is a kind the server does not serve yet (a CRD a runnable installs
// after Start).
//
// Set Options.Permissions to one to turn the check on. Naming this type
// is what links it (see "Binary size" in the package doc).
type PermissionsCheck struct {
	// Timeout bounds the whole check; zero means 30 seconds. A check that
	// does not end in time fails Start.
	Timeout time.Duration
}

// access is one permission: a verb on a resource of a group, in a
// namespace ("" for all, or the cluster scope).
type access struct {
	verb, group, resource, namespace string
}

func (pc PermissionsCheck) checkPermissions(ctx context.Context, m *Manager) error {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(pc.Timeout, 30*time.Second))
	defer cancel()
	wanted, err := m.accessNeeded(ctx)
	if err != nil {
		return errs.Errorf("check permissions: %w", err)
	}
	var missing []access
	for _, a := range wanted {
		ok, err := allowed(ctx, m.APIClient(), a)
		if err != nil {
			return errs.Errorf("check permissions: %w", err)
		}
		if !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		return errs.Errorf("check permissions: the manager may not do what it will do; add to its roles:\n%s", rulesYAML(missing))
	}
	m.log.Info("permissions checked", "reviews", len(wanted))
	return nil
}

// accessNeeded lists what the manager's own parts will ask of the server.
func (m *Manager) accessNeeded(ctx context.Context) ([]access, error) {
	var out []access
	scopes := map[string]bool{}
	for _, st := range m.Cache().Stats() {
		mp, err := m.Mapping(ctx, st.Kind)
		var notServed *kube.NoKindMatchError
		if errors.As(err, &notServed) {
			// A kind whose CRD a runnable installs after Start: its
			// resource's name is not known yet.
			m.log.Info("permissions of a kind not served yet are not checked", "kind", st.Kind.Kind)
			continue
		}
		if err != nil {
			return nil, err
		}
		namespaces := st.Namespaces
		if len(namespaces) == 0 || !mp.Namespaced {
			namespaces = []string{""}
		}
		for _, ns := range namespaces {
			scopes[ns] = true
			for _, verb := range []string{"list", "watch"} {
				out = append(out, access{verb, mp.GVK.Group, mp.Resource, ns})
			}
		}
	}
	if m.election != nil {
		ns, _ := m.election.lease()
		for _, verb := range []string{"get", "create", "update"} {
			out = append(out, access{verb, "coordination.k8s.io", "leases", ns})
		}
	}
	if len(scopes) == 0 || scopes[""] {
		scopes = map[string]bool{"": true}
	}
	for _, ns := range slices.Sorted(maps.Keys(scopes)) {
		for _, verb := range []string{"create", "patch"} {
			out = append(out, access{verb, "events.k8s.io", "events", ns})
		}
	}
	return out, nil
}

// selfSubjectAccessReview is an authorization.k8s.io/v1
// SelfSubjectAccessReview about a resource.
type selfSubjectAccessReview struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		ResourceAttributes struct {
			Namespace string `json:"namespace,omitempty"`
			Verb      string `json:"verb"`
			Group     string `json:"group"`
			Resource  string `json:"resource"`
		} `json:"resourceAttributes"`
	} `json:"spec"`
	Status struct {
		Allowed bool `json:"allowed"`
	} `json:"status"`
}

func (*selfSubjectAccessReview) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview"}
}

// allowed asks the server whether the client may do a.
func allowed(ctx context.Context, c *kube.Client, a access) (bool, error) {
	r := &selfSubjectAccessReview{}
	attrs := &r.Spec.ResourceAttributes
	attrs.Namespace, attrs.Verb, attrs.Group, attrs.Resource = a.namespace, a.verb, a.group, a.resource
	if err := c.Create(ctx, r); err != nil {
		return false, errs.Errorf("ask whether it may %s %s: %w", a.verb, qualifiedResource(a), err)
	}
	return r.Status.Allowed, nil
}

func qualifiedResource(a access) string {
	if a.group == "" {
		return a.resource
	}
	return a.resource + "." + a.group
}

// rulesYAML writes the missing permissions as RBAC rules: those of all
// namespaces for a ClusterRole, those of one namespace for a Role there;
// one rule per resource, with its verbs.
func rulesYAML(missing []access) string {
	type place struct{ namespace, group, resource string }
	verbs := map[place][]string{}
	for _, a := range missing {
		p := place{a.namespace, a.group, a.resource}
		verbs[p] = append(verbs[p], a.verb)
	}
	places := slices.SortedFunc(maps.Keys(verbs), func(a, b place) int {
		return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.group, b.group), cmp.Compare(a.resource, b.resource))
	})
	var b strings.Builder
	scope := "\x00"
	for _, p := range places {
		if p.namespace != scope {
			scope = p.namespace
			if scope == "" {
				b.WriteString("# a ClusterRole (all namespaces)\n")
			} else {
				fmt.Fprintf(&b, "# a Role in namespace %s (or a ClusterRole)\n", scope)
			}
		}
		fmt.Fprintf(&b, "- apiGroups: [%q]\n  resources: [%s]\n  verbs: [%s]\n", p.group, p.resource, strings.Join(verbs[p], ", "))
	}
	return b.String()
}
