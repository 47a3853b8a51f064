// SPDX-License-Identifier: Apache-2.0

package fleet

import "errors"

// errNoFleet and errNoCluster are what the methods of a Fleet or a
// Cluster that the package did not make (a nil pointer or a zero value)
// return.
var (
	errNoFleet   = errors.New("fleet.Fleet: use fleet.New")
	errNoCluster = errors.New("fleet.Cluster: use Fleet.Cluster")
)

// made reports whether f was made by [New].
func (f *Fleet) made() bool { return f != nil && f.log != nil }

// made reports whether c was made by the fleet.
func (c *Cluster) made() bool { return c != nil && c.cluster != nil }
