// SPDX-License-Identifier: Apache-2.0

// Package sample declares, by name, the types zerotest's own test walks.
package sample

type Good struct{}

func (*Good) Len() int { return 0 }

type Bad struct{}

func (*Bad) Boom() {}

type Missing struct{}

func (Missing) Name() string { return "" }
