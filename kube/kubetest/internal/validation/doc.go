// SPDX-License-Identifier: Apache-2.0

// Package validation checks names, generateName, labels and annotation
// keys with kube-apiserver's messages (apimachinery's util/validation and
// ObjectMeta validation): [Metadata] for an object about to be written,
// by its kind's [NameRule], and the name checks ([IsDNS1123Label], ...)
// that return the messages of each failure, none when the name is valid;
// and [Immutable], what an update of an immutable ConfigMap or Secret may
// not change.
package validation
