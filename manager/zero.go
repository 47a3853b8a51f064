// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
)

// errNoManager is what the methods of a Manager that New did not make (a
// nil pointer or a zero Manager) return.
var errNoManager = errors.New("manager.Manager: use manager.New")

// made reports whether m was made by [New]; the methods of one that was
// not return errNoManager or a zero value.
func (m *Manager) made() bool { return m != nil && m.APIClient() != nil }
