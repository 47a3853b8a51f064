// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// testSecretAndConfigMapData checks the validation the real server does
// beyond the schema for the data of Secrets and ConfigMaps: the keys each
// built-in Secret type needs (and the service account annotation of
// service-account-token), docker configurations that are JSON, and the
// keys of data and binaryData. Each case has one error, as the real server
// lists several in Go's map order.
func testSecretAndConfigMapData(t *testing.T, f *fixture) {
	secrets := "/api/v1/namespaces/" + f.ns + "/secrets"
	configMaps := "/api/v1/namespaces/" + f.ns + "/configmaps"
	const keyMsg = `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`
	for _, tc := range []struct {
		path, body, msg string // msg "" for a create that succeeds
	}{
		{secrets, `"type":"kubernetes.io/tls","data":{}`, `Secret "x" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]`},
		{secrets, `"type":"kubernetes.io/tls","data":{"tls.crt":""}`, `Secret "x" is invalid: data[tls.key]: Required value`},
		{secrets, `"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}`, ""},
		{secrets, `"type":"kubernetes.io/dockerconfigjson","data":{}`, `Secret "x" is invalid: data[.dockerconfigjson]: Required value`},
		{secrets, `"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"bm9wZQ=="}`,
			`Secret "x" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`},
		{secrets, `"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"e30="}`, ""},
		{secrets, `"type":"kubernetes.io/dockercfg","data":{}`, `Secret "x" is invalid: data[.dockercfg]: Required value`},
		{secrets, `"type":"kubernetes.io/basic-auth","data":{"other":"eA=="}`, `Secret "x" is invalid: [data[username]: Required value, data[password]: Required value]`},
		{secrets, `"type":"kubernetes.io/basic-auth","stringData":{"password":"p"}`, ""},
		{secrets, `"type":"kubernetes.io/ssh-auth","data":{}`, `Secret "x" is invalid: data[ssh-privatekey]: Required value`},
		{secrets, `"type":"kubernetes.io/service-account-token","data":{}`,
			`Secret "x" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value`},
		{secrets, `"type":"bootstrap.kubernetes.io/token","data":{}`, ""},
		{secrets, `"data":{"bad key":"eA=="}`, `Secret "x" is invalid: data[bad key]: Invalid value: "bad key": ` + keyMsg},
		{secrets, `"stringData":{"..":"x"}`, `Secret "x" is invalid: data[..]: Invalid value: "..": must not be '..'`},
		{configMaps, `"data":{"..a":"x"}`, `ConfigMap "x" is invalid: data[..a]: Invalid value: "..a": must not start with '..'`},
		{configMaps, `"binaryData":{"a/b":"eA=="}`, `ConfigMap "x" is invalid: binaryData[a/b]: Invalid value: "a/b": ` + keyMsg},
		{configMaps, `"data":{"a":"x"},"binaryData":{"a":"eA=="}`,
			`ConfigMap "x" is invalid: data[a]: Invalid value: "a": duplicate of key present in binaryData`},
	} {
		r := f.send(t, "POST", tc.path, "application/json", `{"metadata":{"name":"x"},`+tc.body+`}`)
		if tc.msg == "" {
			if r.code != http.StatusCreated {
				t.Errorf("create with %s = %d %s, want 201", tc.body, r.code, r.body)
			}
			f.send(t, "DELETE", tc.path+"/x", "", "")
			continue
		}
		expectStatus(t, "create with "+tc.body, r, http.StatusUnprocessableEntity, "Invalid", tc.msg)
	}

	// At most 1 MiB of data: the values, binary ones decoded, keys not
	// counted.
	mib := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name, path, body, msg string
	}{
		{"a ConfigMap of 1 MiB and a byte", configMaps, `"data":{"a":"` + mib[:700000] + `","b":"` + mib[:348577] + `"}`,
			`ConfigMap "x" is invalid: []: Too long: may not be more than 1048576 bytes`},
		{"a ConfigMap of 1 MiB in data and binaryData", configMaps,
			`"data":{"a":"` + mib[:700000] + `"},"binaryData":{"b":"` + base64.StdEncoding.EncodeToString([]byte(mib[:348576])) + `"}`, ""},
		{"a Secret of 1 MiB and a byte", secrets, `"stringData":{"a":"` + mib + `x"}`,
			`Secret "x" is invalid: data: Too long: may not be more than 1048576 bytes`},
		{"a Secret of 1 MiB", secrets, `"data":{"a":"` + base64.StdEncoding.EncodeToString([]byte(mib)) + `"}`, ""},
	} {
		r := f.send(t, "POST", tc.path, "application/json", `{"metadata":{"name":"x"},`+tc.body+`}`)
		if tc.msg == "" {
			if r.code != http.StatusCreated {
				t.Errorf("create %s = %d, want 201", tc.name, r.code)
			}
			f.send(t, "DELETE", tc.path+"/x", "", "")
			continue
		}
		if r.code != http.StatusUnprocessableEntity { // the body holds a MiB: not quoted
			t.Errorf("create %s = %d, want 422", tc.name, r.code)
			continue
		}
		expectStatus(t, "create "+tc.name, r, http.StatusUnprocessableEntity, "Invalid", tc.msg)
	}

	// An update is checked too.
	f.send(t, "POST", secrets, "application/json", `{"metadata":{"name":"tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`)
	r := f.send(t, "PATCH", secrets+"/tls", "application/merge-patch+json", `{"data":{"tls.key":null}}`)
	expectStatus(t, "removing tls.key", r, http.StatusUnprocessableEntity, "Invalid", `Secret "tls" is invalid: data[tls.key]: Required value`)
}
