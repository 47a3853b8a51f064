// SPDX-License-Identifier: Apache-2.0

// Package scale reads and writes the autoscaling/v1 Scale of an object:
// [Paths] says where a kind keeps its spec replicas, status replicas and
// selector (a Deployment's fixed paths, [Workload], or those of a CRD's
// subresources.scale, [FromCRD]), [Paths.Of] makes the Scale an object
// shows ([Paths.Read]: with the real server's 500 for a custom resource
// without spec replicas), and [SetField] writes the replicas a Scale
// write changes; for an update or patch of a Scale, [ReadChange] reads
// the body and [Paths.Write] applies it and checks the result; for a
// server-side apply of a Scale, [ParseApply] reads the configuration,
// [ApplyParent] turns it into one of the scaled object, and [Conflict]
// and [ErrConvert] word the errors as on the Scale. The
// server serves the subresource (reads the request, stores the object,
// answers errors); this package keeps no state and reads no other
// object.
//
// Guarantees:
//   - Of never modifies o but for the metadata map [unstructured.Metadata]
//     adds to an object without one.
//   - A selector that is missing or not a valid LabelSelector shows as
//     none, never as an error.
//   - A Scale write changes only the object's spec replicas, and only
//     when the Scale written names the object, carries its
//     resourceVersion if any and is not negative (else the real server's
//     400, 409 or 422).
package scale
