// SPDX-License-Identifier: Apache-2.0

// Package openapipb encodes kubetest's OpenAPI documents in protobuf, as
// kube-apiserver serves them to an Accept of
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf (/openapi/v2)
// or ...spec.v3@v1.0+protobuf (the /openapi/v3 documents): gnostic's
// openapi_v2.Document and openapi_v3.Document (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto and openapiv3/OpenAPIv3.proto). client-go's
// DiscoveryClient.OpenAPISchema, kubectl explain
// --output=plaintext-openapiv2 and kubectl's validation of a List ask
// for v2 in protobuf. [V2] and [V3] read the JSON document and write the
// message gnostic builds from it, field by field; defaults, examples,
// enum values and x- extensions are Any values holding YAML, written as
// go-yaml v3 writes them. Written by hand with the standard library:
// kubetest links no protobuf or YAML library.
//
// Guarantees:
//   - For a document gnostic accepts, V2 and V3 write the bytes
//     kube-apiserver writes for the same JSON text (named entries and
//     YAML mappings in the text's order), except for a string in an Any
//     holding U+2028 or U+2029, which go-yaml reads from the JSON as line
//     breaks and V2 and V3 keep.
//   - Nothing is dropped silently: V2 and V3 return every key they do not
//     encode and every value of the wrong type, by JSON Pointer.
//   - V2 and V3 are pure and cost O(size of the document); they keep no
//     state.
package openapipb
