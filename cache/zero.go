// SPDX-License-Identifier: Apache-2.0

package cache

import "errors"

// errNoCache and errNoInformer are what the methods of a Cache or an
// Informer that its constructor did not make (a nil pointer or a zero
// value) return.
var (
	errNoCache    = errors.New("cache.Cache: use cache.New")
	errNoInformer = errors.New("cache.Informer: use cache.NewInformer")
)

// made reports whether c was made by [New].
func (c *Cache) made() bool { return c != nil && c.client != nil }
