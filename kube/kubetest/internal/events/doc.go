// SPDX-License-Identifier: Apache-2.0

// Package events holds the two forms of an Event kube-apiserver 1.36
// serves, core v1 and events.k8s.io/v1, and what it refuses of either.
// The server stores Events once, in the core form: [ToCore] converts what
// a client writes through either API to it, [ToEvents] converts a stored
// Event for an events.k8s.io/v1 reader, [FieldAliases] maps that API's
// field selectors to the core fields, and [Validate] checks a write.
//
// Guarantees:
//   - Each form is encoded as its Go type encodes it: the fields without
//     omitempty are always there (an unset time is null, an unset struct
//     {}), the others only when set.
//   - Nothing here keeps state or reads another object. A conversion
//     returns a new top-level map that shares o's nested values, and
//     ToEvents fills the count and lastObservedTime a series lacks in
//     place.
package events
