// SPDX-License-Identifier: Apache-2.0

// Package openapi builds the OpenAPI documents kube-apiserver publishes
// for CustomResourceDefinitions: [CRDV3] the /openapi/v3 group-version
// document of a CRD's served kinds, [CRDV2Parts] their paths and
// definitions in /openapi/v2. The templates are the documents captured
// for two capture CRDs (package schema), renamed to the CRD's
// [CRDNames]; each kind's schema comes from its openAPIV3Schema.
//
// The functions are pure: they read the shared captured documents and
// return fresh documents the caller owns. Serving them (hashes, ETags,
// the index) is the server's.
package openapi
