// SPDX-License-Identifier: Apache-2.0

package controller

import "errors"

// errNoController and errNoShards are what the methods of a Controller
// or Shards that its constructor did not make (a nil pointer or a zero
// value) return.
var (
	errNoController = errors.New("controller.Controller: use controller.New or a Builder")
	errNoShards     = errors.New("controller.Shards: use controller.NewShards")
	errNoBuilder    = errors.New("controller.Builder: use controller.NewBuilder")
)

// made reports whether c was made by [New].
func (c *Controller) made() bool { return c != nil && c.q != nil }

// made reports whether s was made by [NewShards].
func (s *Shards) made() bool { return s != nil && s.inf != nil }
