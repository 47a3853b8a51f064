// SPDX-License-Identifier: Apache-2.0

// Package quantity prints resource quantities ("500m", "1Gi", "2e3") in
// the canonical form kube-apiserver stores and prints them in: the largest
// suffix that keeps the number whole, in the suffix family the quantity
// was written in. [Canonical] takes the string, [Format] a decoded JSON
// value; both are pure.
package quantity
