// SPDX-License-Identifier: Apache-2.0

// Package openapipb encodes kubetest's OpenAPI v2 document in protobuf:
// gnostic's openapi_v2.Document (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto), which kube-apiserver answers on
// /openapi/v2 to an Accept of
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf, and which client-go's
// DiscoveryClient.OpenAPISchema, kubectl explain
// --output=plaintext-openapiv2 and kubectl's validation of a List ask
// for. [V2] reads the JSON document and writes the message gnostic
// builds from it, field by field; defaults, examples, enum values and
// x- extensions are Any values holding YAML, written as go-yaml v3
// writes them. Written by hand with the standard library: kubetest
// links no protobuf or YAML library.
//
// Guarantees:
//   - For a document gnostic accepts, V2 writes the bytes kube-apiserver
//     writes for the same JSON text (named entries and YAML mappings in
//     the text's order), except that a string holding a line break
//     inside an Any is double-quoted where go-yaml writes a literal
//     block (the same value).
//   - Nothing is dropped silently: V2 returns every key it does not
//     encode and every value of the wrong type, by JSON Pointer.
//   - V2 is pure and costs O(size of the document); it keeps no state.
package openapipb
