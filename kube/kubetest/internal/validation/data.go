// SPDX-License-Identifier: Apache-2.0

package validation

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the validation kube-apiserver does beyond the schema for
// the data of ConfigMaps and Secrets: the keys (ConfigMapKey),
// a ConfigMap key in both data and binaryData, the size of the data
// (maxDataSize), and the keys and annotation each built-in Secret type
// requires. The real server walks
// the keys in Go's map order, so with several bad keys its errors come in
// any order; here they come sorted by key.

// obj is a decoded JSON object.
type obj = map[string]any

// Secret types and the keys they need, as core/v1 names them.
const (
	secretServiceAccountToken = "kubernetes.io/service-account-token"
	secretDockercfg           = "kubernetes.io/dockercfg"
	secretDockerConfigJSON    = "kubernetes.io/dockerconfigjson"
	secretBasicAuth           = "kubernetes.io/basic-auth"
	secretSSHAuth             = "kubernetes.io/ssh-auth"
	secretTLS                 = "kubernetes.io/tls"
	annotationServiceAccount  = "kubernetes.io/service-account.name"
)

// maxDataSize is the most data a ConfigMap or a Secret may hold (1 MiB):
// the bytes of its values, binary ones decoded, keys not counted.
const maxDataSize = 1 << 20

// dataSize is the size of m's values as maxDataSize counts them; encoded
// says they are base64, which the schema has checked.
func dataSize(m obj, encoded bool) int {
	n := 0
	for _, v := range m {
		s, _ := v.(string)
		if encoded {
			n += len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "=")))
		} else {
			n += len(s)
		}
	}
	return n
}

// tooLong is the error for data over maxDataSize, at field.
func tooLong(field string) fielderr.Error {
	return fielderr.Error{Type: "FieldValueTooLong", Field: field, Detail: fmt.Sprintf("may not be more than %d bytes", maxDataSize)}
}

// Data returns the errors of o's data, for ConfigMaps and Secrets (the
// resource of group and plural); nil for other kinds.
func Data(group, plural string, o map[string]any) []fielderr.Error {
	if group != "" || (plural != "configmaps" && plural != "secrets") {
		return nil
	}
	data, _ := o["data"].(obj)
	errs := keyErrors("data", data)
	if plural == "configmaps" {
		binary, _ := o["binaryData"].(obj)
		var dups []string
		for k := range data {
			if _, dup := binary[k]; dup {
				dups = append(dups, k)
			}
		}
		slices.Sort(dups)
		for _, k := range dups {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "data[" + k + "]", Value: k,
				Detail: "duplicate of key present in binaryData"})
		}
		errs = append(errs, keyErrors("binaryData", binary)...)
		if dataSize(data, false)+dataSize(binary, true) > maxDataSize {
			errs = append(errs, tooLong("[]"))
		}
		return errs
	}
	if dataSize(data, true) > maxDataSize {
		errs = append(errs, tooLong("data"))
	}
	return append(errs, secretTypeErrors(o, data)...)
}

// keyErrors checks the keys of m, the field named field. Valid keys cost
// no allocation.
func keyErrors(field string, m obj) []fielderr.Error {
	var bad []string
	for k := range m {
		if len(ConfigMapKey(k)) > 0 {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	var errs []fielderr.Error
	for _, k := range bad {
		for _, msg := range ConfigMapKey(k) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field + "[" + k + "]", Value: k, Detail: msg})
		}
	}
	return errs
}

// secretTypeErrors checks what the Secret's type requires.
func secretTypeErrors(o, data obj) []fielderr.Error {
	required := func(field string) fielderr.Error { return fielderr.Error{Type: "FieldValueRequired", Field: field} }
	has := func(k string) bool { _, ok := data[k]; return ok }
	var errs []fielderr.Error
	switch typ := unstructured.String(o, "type"); typ {
	case secretServiceAccountToken:
		annotations, _ := unstructured.Metadata(o)["annotations"].(obj)
		if unstructured.String(annotations, annotationServiceAccount) == "" {
			errs = append(errs, required("metadata.annotations["+annotationServiceAccount+"]"))
		}
	case secretDockercfg, secretDockerConfigJSON:
		key := ".dockercfg"
		if typ == secretDockerConfigJSON {
			key = ".dockerconfigjson"
		}
		if !has(key) {
			errs = append(errs, required("data["+key+"]"))
			break
		}
		raw, err := base64.StdEncoding.DecodeString(unstructured.String(data, key))
		if err != nil {
			break // the schema's byte format refused it already
		}
		if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "data[" + key + "]",
				Value: "<secret contents redacted>", Detail: err.Error()})
		}
	case secretBasicAuth:
		if !has("username") && !has("password") {
			errs = append(errs, required("data[username]"), required("data[password]"))
		}
	case secretSSHAuth:
		if unstructured.String(data, "ssh-privatekey") == "" {
			errs = append(errs, required("data[ssh-privatekey]"))
		}
	case secretTLS:
		for _, k := range []string{"tls.crt", "tls.key"} {
			if !has(k) {
				errs = append(errs, required("data["+k+"]"))
			}
		}
	}
	return errs
}
