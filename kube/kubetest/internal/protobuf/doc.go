// SPDX-License-Identifier: Apache-2.0

// Package protobuf speaks kube-apiserver's protobuf for kubetest: it reads
// the protobuf request bodies that kubectl's generators and client-go's
// typed clients send ([DecodeDeleteOptions] for any resource,
// [DecodeObject] for the built-in kinds) and writes protobuf answers and
// watch frames ([EncodeObject], and [ResponseWriter], which transcodes a
// handler's JSON). The layout of every kind of client-go's scheme (lists,
// subresource kinds and meta.k8s.io's Status, WatchEvent and
// PartialObjectMetadata included), of CustomResourceDefinitions and of
// APIServices is in protobuf.json, generated from the Go types of
// k8s.io/api, apiextensions-apiserver and kube-aggregator by
// testdata/kube-apiserver/protodesc. An object
// decodes to the JSON object the real server would store for it, and a
// JSON object encodes to what a typed client decodes to the same object.
// Custom resources have no layout: they stay JSON.
//
// Decoding and encoding cost O(size of the object); the layout is parsed
// once and read-only after.
package protobuf
