// SPDX-License-Identifier: Apache-2.0

package leader

import "errors"

// errNoElector and errNoMember are what the methods of an Elector or a
// Member that its constructor did not make (a nil pointer or a zero
// value) return.
var (
	errNoElector = errors.New("leader.Elector: use leader.New")
	errNoMember  = errors.New("leader.Member: use leader.NewMember")
)

// made reports whether e was made by [New].
func (e *Elector) made() bool { return e != nil && e.elected != nil }
