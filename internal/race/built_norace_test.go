// SPDX-License-Identifier: Apache-2.0

//go:build !race

package race

const builtWithRace = false
