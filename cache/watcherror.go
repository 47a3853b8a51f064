// SPDX-License-Identifier: Apache-2.0

package cache

import "github.com/kubeloop/kubeloop/kube"

// WatchErrorHandler is told of each failure of an informer's lists and
// watches, with the informer's kind: a request refused (a
// [*kube.StatusError]: 403 when RBAC denies it, 404 when the kind is
// not served), a connection or a stream broken, a 410 whose relist
// follows ([kube.IsGone]). It is called on the informer's reading
// goroutine, before it waits to retry: it must return soon. The informer
// retries whatever it does; a program that would rather stop cancels its
// context.
type WatchErrorHandler func(kind kube.GroupVersionKind, err error)
