// SPDX-License-Identifier: Apache-2.0

// Package openapi builds the OpenAPI documents kube-apiserver publishes
// for CustomResourceDefinitions: [CRDV3] the /openapi/v3 group-version
// document of a CRD's served kinds, [CRDV2Parts] their paths and
// definitions in /openapi/v2. The templates are the documents captured
// for two capture CRDs (package schema), renamed to the CRD's
// [CRDNames]; each kind's schema comes from its openAPIV3Schema.
//
// [Serve] serves them with the real server's headers: the /openapi/v3
// index, each document with its hash as ETag (a stale hash redirected to
// the current one, a current one cached for good), /openapi/v2 as one
// document, each in JSON or in protobuf (package openapipb), chosen from
// the Accept header as kube-openapi chooses; [FilterPaths] limits the
// captured built-in documents to the resources a server serves.
//
// Guarantees:
//   - The builders are pure: they read the shared captured documents and
//     return fresh documents the caller owns.
//   - Serve keeps no state but the Last-Modified of the process's first
//     document, and asks for the documents once per request.
//   - Every Accept gets the form kube-apiserver 1.37 gives it (q-values
//     first, then the header's order; wildcards are JSON), and both
//     forms of a document carry the JSON's hash as ETag; a matching
//     If-None-Match is a 304 without encoding.
package openapi
