// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
)

// objectRequest builds the request for one object (key.Name set) or for
// its collection (key.Name empty, for create).
func (c *Client) objectRequest(ctx context.Context, method string, gvk GroupVersionKind, key Key, sub string) (*request, error) {
	m, err := c.Mapping(ctx, gvk)
	if err != nil {
		return nil, err
	}
	if m.Namespaced && key.Namespace == "" {
		return nil, fmt.Errorf("%s is namespaced: the object needs a namespace", gvk.Kind)
	}
	if !m.Namespaced {
		key.Namespace = ""
	}
	path := c.collectionPath(m, key.Namespace)
	if key.Name != "" {
		path += "/" + url.PathEscape(key.Name)
	} else if method != http.MethodPost {
		return nil, errors.New("object has no name")
	}
	if sub != "" {
		path += "/" + sub
	}
	return &request{method: method, path: path, safe: method == http.MethodGet}, nil
}

// collectionPath is /api/v1[/namespaces/NS]/RESOURCE or the /apis/G/V form.
func (c *Client) collectionPath(m Mapping, namespace string) string {
	root := "/api/"
	if m.GVK.Group != "" {
		root = "/apis/" + m.GVK.Group + "/"
	}
	in := ""
	if m.Namespaced && namespace != "" {
		in = "/namespaces/" + url.PathEscape(namespace)
	}
	return root + m.GVK.Version + in + "/" + m.Resource
}

// Accept headers: the metadata projection, falling back to the full
// object for servers that lack it.
const (
	acceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

func acceptFor(obj Object) string {
	if _, ok := obj.(*PartialObjectMetadata); ok {
		return acceptMetadata
	}
	return ""
}

func isMetadataList(list ObjectList) bool {
	_, ok := list.(*List[PartialObjectMetadata])
	return ok
}

// stampKind writes gvk into obj's apiVersion and kind when the server's
// answer named another (the metadata projection answers with
// PartialObjectMetadata).
func stampKind(obj Object, gvk GroupVersionKind) {
	if p, ok := obj.(*PartialObjectMetadata); ok {
		p.SetGroupVersionKind(gvk)
	}
}

// resetObject sets the value out points to to its zero value, so that
// decoding into it leaves nothing from before (encoding/json merges maps).
func resetObject(out any) {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero()
	}
}

// describe names an object in an error: namespace/name or generateName*.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func describe(m *ObjectMeta) string {
	k := m.Key()
	if k.Name == "" && m.GenerateName != "" {
		k.Name = m.GenerateName + "*"
	}
	return k.String()
}
