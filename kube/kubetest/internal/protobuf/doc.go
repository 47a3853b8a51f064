// SPDX-License-Identifier: Apache-2.0

// Package protobuf reads the protobuf request bodies that kubectl's
// generators and client-go's typed clients send, as kube-apiserver reads
// them: [DecodeDeleteOptions] for any resource, and [DecodeObject] for the
// built-in kinds, whose layout protobuf.json holds (generated from
// k8s.io/api by testdata/kube-apiserver/protodesc). An object decodes to
// the JSON object the real server would store for it.
//
// Decoding costs O(size of the body); the layout is parsed once and
// read-only after.
package protobuf
