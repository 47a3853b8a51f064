// SPDX-License-Identifier: Apache-2.0

// Package validation checks names, generateName, labels and annotation
// keys with kube-apiserver's messages (apimachinery's util/validation and
// ObjectMeta validation): [Metadata] for an object about to be written,
// by its kind's [NameRule], and the name checks ([IsDNS1123Label], ...)
// that return the messages of each failure, none when the name is valid;
// [Immutable], what an update of an immutable ConfigMap or Secret may
// not change; and [Data], the keys, size and required entries of a
// ConfigMap's or a Secret's data (errors sorted by key); [PodSpec], the
// containers every pod spec needs.
//
// Guarantees:
//   - Names are checked by their kind's rule: DNS-1123 subdomain, label,
//     DNS-1035 label, or path segment (RBAC: "system:foo" is valid, "a/b",
//     "50%", "." and ".." are not), with the real messages.
//   - Nothing here changes the object it checks.
package validation
