// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// This file reads protobuf request bodies, which kubectl's generators and
// client-go's typed clients send for built-in kinds: DeleteOptions (which
// the real server decodes for every resource) by hand, and objects of the
// built-in kinds with their layout in protobuf.json (generated from
// k8s.io/api by testdata/kube-apiserver/protodesc) into the JSON the real
// server would store for them. Custom resources and CRDs have no layout:
// their protobuf bodies answer 415.
//
// A Kubernetes protobuf body is the magic "k8s\x00" followed by a
// runtime.Unknown message: typeMeta (1: apiVersion, 2: kind), raw (2: the
// object's own message), contentEncoding (3), contentType (4).

// MediaType is the Content-Type of a Kubernetes protobuf body.
const MediaType = "application/vnd.kubernetes.protobuf"

var protoMagic = []byte("k8s\x00")

// protoField is one field of a protobuf message: a varint (wire type 0) or
// a length-delimited value (wire type 2). Other wire types do not occur in
// the messages read here and are skipped.
type protoField struct {
	num   uint64
	wire  uint64
	value uint64 // wire type 0
	bytes []byte // wire type 2
}

// protoFields splits a message into its fields, in order.
func protoFields(b []byte) ([]protoField, error) {
	var out []protoField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad field key")
		}
		b = b[n:]
		f := protoField{num: key >> 3, wire: key & 7}
		switch f.wire {
		case 0:
			if f.value, n = binary.Uvarint(b); n <= 0 {
				return nil, fmt.Errorf("bad varint in field %d", f.num)
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return nil, fmt.Errorf("short fixed64 in field %d", f.num)
			}
			f.value, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, fmt.Errorf("bad length in field %d", f.num)
			}
			f.bytes, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return nil, fmt.Errorf("short fixed32 in field %d", f.num)
			}
			b = b[4:]
		default:
			return nil, fmt.Errorf("unsupported wire type %d in field %d", f.wire, f.num)
		}
		out = append(out, f)
	}
	return out, nil
}

// protoEnvelope splits a protobuf body into its type and the object's
// message.
func protoEnvelope(body []byte) (apiVersion, kind string, raw []byte, err error) {
	rest, ok := bytes.CutPrefix(body, protoMagic)
	if !ok {
		return "", "", nil, errors.New("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")
	}
	envelope, err := protoFields(rest)
	if err != nil {
		return "", "", nil, err
	}
	for _, f := range envelope {
		switch {
		case f.num == 1 && f.wire == 2:
			tm, err := protoFields(f.bytes)
			if err != nil {
				return "", "", nil, err
			}
			for _, t := range tm {
				switch {
				case t.num == 1 && t.wire == 2:
					apiVersion = string(t.bytes)
				case t.num == 2 && t.wire == 2:
					kind = string(t.bytes)
				}
			}
		case f.num == 2 && f.wire == 2:
			raw = f.bytes
		}
	}
	return apiVersion, kind, raw, nil
}

// DecodeDeleteOptions reads a protobuf DeleteOptions envelope.
func DecodeDeleteOptions(body []byte) (*DeleteOptions, error) {
	_, kind, raw, err := protoEnvelope(body)
	if err != nil {
		return nil, err
	}
	if kind != "DeleteOptions" {
		return nil, errors.New("decoded object cannot be converted to DeleteOptions")
	}
	fields, err := protoFields(raw)
	if err != nil {
		return nil, err
	}
	var o DeleteOptions
	for _, f := range fields {
		switch {
		case f.num == 1 && f.wire == 0:
			g := int64(f.value)
			o.GracePeriodSeconds = &g
		case f.num == 2 && f.wire == 2:
			pre, err := protoFields(f.bytes)
			if err != nil {
				return nil, err
			}
			o.Preconditions = &Preconditions{}
			for _, p := range pre {
				v := string(p.bytes)
				switch p.num {
				case 1:
					o.Preconditions.UID = &v
				case 2:
					o.Preconditions.ResourceVersion = &v
				}
			}
		case f.num == 3 && f.wire == 0:
			b := f.value != 0
			o.OrphanDependents = &b
		case f.num == 4 && f.wire == 2:
			p := string(f.bytes)
			o.PropagationPolicy = &p
		case f.num == 5 && f.wire == 2:
			o.DryRun = append(o.DryRun, string(f.bytes))
		}
	}
	return &o, nil
}

// DeleteOptions is the part of meta/v1 DeleteOptions the server acts on,
// as [DecodeDeleteOptions] reads it from protobuf and encoding/json from
// JSON (the field tags).
type DeleteOptions struct {
	Preconditions      *Preconditions `json:"preconditions"`
	PropagationPolicy  *string        `json:"propagationPolicy"`
	OrphanDependents   *bool          `json:"orphanDependents"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds"`
	DryRun             []string       `json:"dryRun"`
}

// Preconditions are the uid and resourceVersion a delete requires.
type Preconditions struct {
	UID             *string `json:"uid"`
	ResourceVersion *string `json:"resourceVersion"`
}
