// SPDX-License-Identifier: Apache-2.0

package satoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// Issuer and audience of the tokens, as the harness's kube-apiserver
// has them (--service-account-issuer, its API audiences).
const (
	Issuer   = "https://kubernetes.default.svc"
	audience = Issuer
)

// Expiration bounds of a TokenRequest, in seconds.
const (
	defaultExpiration = 3600
	minExpiration     = 600
	maxExpiration     = 1 << 32
)

// Claims are what a token says: the service account it is of, for whom,
// and when.
type Claims struct {
	Namespace, Name, UID string // the service account
	Audiences            []string
	IssuedAt, Expiry     int64 // Unix seconds
	ID                   string
}

// User is the user name of service account ns/name.
func User(ns, name string) string { return "system:serviceaccount:" + ns + ":" + name }

// IsUser reports whether user names a service account.
func IsUser(user string) bool { return strings.HasPrefix(user, "system:serviceaccount:") }

// Groups are the groups of a service account of namespace ns.
func Groups(ns string) []any {
	return []any{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
}

// Account is the service account a TokenRequest is made for.
type Account struct{ Namespace, Name, UID string }

// Refusal is a TokenRequest refused with 422: Name is the name the real
// message gives the TokenRequest.
type Refusal struct {
	Name   string
	Errors []fielderr.Error
}

// Request checks the TokenRequest body for sa at now and returns its
// answer (without status.token, which the caller signs from the claims)
// and the claims of its token. manager is the field manager; id is the
// token's unique id.
func Request(body map[string]any, sa Account, now time.Time, manager, id string) (map[string]any, Claims, *Refusal) {
	meta := unstructured.Metadata(body)
	if name := unstructured.String(meta, "name"); name != "" && name != sa.Name {
		return nil, Claims{}, &Refusal{Name: sa.Name, Errors: []fielderr.Error{{Type: "FieldValueInvalid", Field: "metadata.name",
			Value: name, Detail: "must match the service account name if specified"}}}
	}
	spec := unstructured.Child(body, "spec", false)
	seconds, sent := unstructured.IntegerValue(spec["expirationSeconds"])
	if !sent || seconds == 0 {
		seconds = defaultExpiration
	}
	switch {
	case seconds < minExpiration:
		return nil, Claims{}, expirationRefused(meta, seconds, "may not specify a duration less than 10 minutes")
	case seconds > maxExpiration:
		return nil, Claims{}, expirationRefused(meta, seconds, "may not specify a duration larger than 2^32 seconds")
	}
	audiences := []any{audience}
	if list, ok := spec["audiences"].([]any); ok && len(list) > 0 {
		audiences = list
	}
	c := Claims{Namespace: sa.Namespace, Name: sa.Name, UID: sa.UID, IssuedAt: now.Unix(), Expiry: now.Unix() + seconds, ID: id}
	for _, a := range audiences {
		s, _ := a.(string)
		c.Audiences = append(c.Audiences, s)
	}
	fields := obj{"f:expirationSeconds": obj{}}
	if _, ok := spec["audiences"]; ok {
		fields["f:audiences"] = obj{}
	}
	if _, ok := spec["boundObjectRef"]; ok {
		fields["f:boundObjectRef"] = obj{}
	}
	stamp := now.UTC().Format(time.RFC3339)
	answer := obj{"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
		"metadata": obj{"name": sa.Name, "namespace": sa.Namespace, "uid": sa.UID, "creationTimestamp": stamp,
			"managedFields": []any{obj{"manager": manager, "operation": "Update", "apiVersion": "authentication.k8s.io/v1",
				"time": stamp, "fieldsType": "FieldsV1", "fieldsV1": obj{"f:spec": fields}, "subresource": "token"}}},
		"spec":   obj{"audiences": audiences, "expirationSeconds": seconds, "boundObjectRef": spec["boundObjectRef"]},
		"status": obj{"expirationTimestamp": time.Unix(c.Expiry, 0).UTC().Format(time.RFC3339)}}
	return answer, c, nil
}

// expirationRefused is the refusal of an expirationSeconds out of bounds;
// the real message names the TokenRequest by its body's name.
func expirationRefused(meta obj, seconds int64, detail string) *Refusal {
	return &Refusal{Name: unstructured.String(meta, "name"), Errors: []fielderr.Error{{Type: "FieldValueInvalid",
		Field: "spec.expirationSeconds", Value: seconds, Detail: detail}}}
}

// header is the token's JOSE header.
var header = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","kid":"kubetest"}`))

// payload is the JSON of a token's claims, laid out as the real
// server's.
type payload struct {
	Aud []string `json:"aud"`
	Exp int64    `json:"exp"`
	Iat int64    `json:"iat"`
	Iss string   `json:"iss"`
	Jti string   `json:"jti"`
	K8s struct {
		Namespace      string `json:"namespace"`
		ServiceAccount struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"serviceaccount"`
	} `json:"kubernetes.io"`
	Nbf int64  `json:"nbf"`
	Sub string `json:"sub"`
}

// Sign returns the token of c signed with key: a JWT (HS256, where the
// real server signs RS256 with its service account key).
func Sign(key []byte, c Claims) string {
	p := payload{Aud: c.Audiences, Exp: c.Expiry, Iat: c.IssuedAt, Iss: Issuer, Jti: c.ID, Nbf: c.IssuedAt, Sub: User(c.Namespace, c.Name)}
	p.K8s.Namespace, p.K8s.ServiceAccount.Name, p.K8s.ServiceAccount.UID = c.Namespace, c.Name, c.UID
	b, _ := json.Marshal(p) // plain data: cannot fail
	signed := header + "." + base64.RawURLEncoding.EncodeToString(b)
	return signed + "." + mac(key, signed)
}

func mac(key []byte, signed string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(signed))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// Verify returns the claims of token when key signed it and it is valid
// at now.
func Verify(key []byte, token string, now time.Time) (Claims, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != header || !hmac.Equal([]byte(parts[2]), []byte(mac(key, parts[0]+"."+parts[1]))) {
		return Claims{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return Claims{}, false
	}
	var p payload
	if err := json.Unmarshal(b, &p); err != nil || now.Unix() >= p.Exp || now.Unix() < p.Nbf {
		return Claims{}, false
	}
	return Claims{Namespace: p.K8s.Namespace, Name: p.K8s.ServiceAccount.Name, UID: p.K8s.ServiceAccount.UID,
		Audiences: p.Aud, IssuedAt: p.Iat, Expiry: p.Exp, ID: p.Jti}, true
}
