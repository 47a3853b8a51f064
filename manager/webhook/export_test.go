// SPDX-License-Identifier: Apache-2.0

package webhook

// What the external tests reach of the package's insides: the mutation
// patch and its answer, and conversions given as raw JSON functions.
var (
	MutationPatch = mutationPatch
	Patched       = patched
)

// ConvertFunc converts one object given as JSON.
type ConvertFunc = convertFunc

// RawSpoke is how one version of a kind converts to and from its hub, as
// functions of JSON.
type RawSpoke struct{ ToHub, FromHub ConvertFunc }

// AddRawSpoke is addSpoke.
func (c *Conversion) AddRawSpoke(group, kind, hub, spoke string, s RawSpoke) error {
	return c.addSpoke(group, kind, hub, spoke, spokeFuncs{toHub: s.ToHub, fromHub: s.FromHub})
}

// AnswerGrace is how long past the deadline a review waits for its
// handler's own answer.
const AnswerGrace = answerGrace
