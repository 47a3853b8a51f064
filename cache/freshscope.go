// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"github.com/kubeloop/kubeloop/kube"
)

// This file tells whether an informer can see a write of this process's
// client (see "Reading your own writes" in the package doc): a write it
// cannot see is neither remembered nor waited for, since no event of it
// will ever come.

// mayHold reports whether inf may hold, or be told of, the object of key
// as a write left it with labels (partial: labels unknown). It is false
// only when inf surely cannot: the namespace is outside its scope, or the
// object, not cached, does not match its label selector as written. It
// does not read field selectors nor shards: a wait for a write they
// filter out gives up once at most.
func (i *informer) mayHold(key kube.Key, labels map[string]string, partial bool) bool {
	if !i.allows(key.Namespace) {
		return false
	}
	if _, cached := i.store.get(key); cached || partial {
		return true // a write that takes it out of the selector is a DELETED event
	}
	i.hub.Lock()
	sel := i.selectors(key.Namespace).Label
	i.hub.Unlock()
	return sel.Matches(labels)
}
