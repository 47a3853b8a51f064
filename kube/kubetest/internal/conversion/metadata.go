// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"fmt"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// sameIdentity checks that the webhook kept what identifies the object:
// kind, name, namespace and uid.
func sameIdentity(in, out obj) error {
	if a, b := unstructured.String(in, "kind"), unstructured.String(out, "kind"); a != b {
		return fmt.Errorf("must have the same kind: %s != %s", a, b)
	}
	inMeta, outMeta := metadataOf(in), metadataOf(out)
	for _, f := range []struct{ key, name string }{{"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}} {
		if a, b := unstructured.String(inMeta, f.key), unstructured.String(outMeta, f.key); a != b {
			return fmt.Errorf("must have the same %s: %s != %s", f.name, a, b)
		}
	}
	return nil
}

// metadataOf is o's metadata, nil when it has none or not an object.
func metadataOf(o obj) obj {
	m, _ := o["metadata"].(obj)
	return m
}

// restoreMetadata gives out a copy of in's metadata, with the labels and
// annotations of out's: the only metadata a webhook may change.
func restoreMetadata(in, out obj) error {
	given, found := out["metadata"]
	if !found {
		return fmt.Errorf("missing metadata in converted object")
	}
	outMeta, ok := given.(obj)
	if !ok {
		return fmt.Errorf("invalid metadata of type %s in converted object", goType(given))
	}
	meta, _ := unstructured.DeepCopy(metadataOf(in)).(obj)
	if meta == nil {
		meta = obj{}
	}
	for _, field := range []string{"labels", "annotations"} {
		v, found := outMeta[field]
		if !found || v == nil {
			delete(meta, field)
			continue
		}
		m, ok := v.(obj)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %s in converted object", field, goType(v))
		}
		for k, s := range m {
			if _, ok := s.(string); !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %s in converted object", field, k, goType(s))
			}
		}
		meta[field] = m
	}
	out["metadata"] = meta
	return nil
}

// goType names the Go type the real server decodes a JSON value into, as
// its errors print it (%T).
func goType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "[]interface {}"
	case obj:
		return "map[string]interface {}"
	case nil:
		return "<nil>"
	}
	if _, ok := unstructured.IntegerValue(v); ok {
		return "int64"
	}
	return "float64"
}
