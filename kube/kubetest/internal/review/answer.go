// SPDX-License-Identifier: Apache-2.0

package review

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// obj is a decoded JSON object.
type obj = map[string]any

// audience is the audience a token is valid for, as the harness's
// kube-apiserver reports it (its --service-account-issuer).
const audience = "https://kubernetes.default.svc"

// Request is a review's POST as the server read it.
type Request struct {
	User      string // who asks
	Namespace string // the namespace of the path, "" for none
	Manager   string // the sender's field manager
	Now       string // the server's time, RFC 3339 in seconds
	// Body is the decoded review; a SelfSubjectReview's is not read (kubectl
	// sends it as protobuf) and may be nil.
	Body map[string]any
	// AttributesErrorAtSpec words an access review with both or neither
	// of resourceAttributes and nonResourceAttributes as 1.37 does: one
	// error at spec, "exactly one of ... must be specified"; false, as
	// 1.33 to 1.36 do: at spec.nonResourceAttributes "cannot be specified
	// in combination with resourceAttributes" or at
	// spec.resourceAttributes "exactly one of ...".
	AttributesErrorAtSpec bool
	// NullCreationTimestamp gives a SelfSubjectRulesReview's answer
	// metadata.creationTimestamp: null, as 1.33 does; newer minors give
	// it empty metadata.
	NullCreationTimestamp bool
	// GoSyntaxValues writes the values of a refusal's field errors in Go
	// syntax, as 1.33 does (fielderr.InGoSyntax); newer minors write JSON.
	GoSyntaxValues bool
}

// Attributes are the resource attributes an access review asks about.
type Attributes struct {
	User, Verb, Group, Resource, Subresource, Namespace, Name string
}

// Server is what the answers ask of kubetest's server.
type Server interface {
	// Denials are the server's denials.
	Denials() *authz.Denials
	// Authorized reports whether the server allows what a asks.
	Authorized(a Attributes) bool
	// UserOf returns the user a bearer token authenticates, ok false for
	// none.
	UserOf(token string) (user string, ok bool)
	// UID returns the uid of a user, "" for none.
	UID(user string) string
}

// Refusal is why a review is not answered: a 422 Invalid with Errors when
// they are set, else a 400 Bad Request saying Message.
type Refusal struct {
	Message string
	Errors  []fielderr.Error
}

// Answer answers a review of kind k, as kube-apiserver 1.36 does with 201;
// the server has checked the verb is create and read the body.
func Answer(k *Kind, req Request, s Server) (map[string]any, *Refusal) {
	switch k {
	case &Self:
		return self(req, s), nil
	case &Rules:
		return rules(req, s)
	case &Token:
		return token(req, s)
	}
	return access(k, req, s)
}

// groups are the groups kubetest reports user in.
func groups(user string) []any {
	if user == "admin" {
		return []any{"system:masters", "system:authenticated"}
	}
	if ns, ok := strings.CutPrefix(user, "system:serviceaccount:"); ok {
		ns, _, _ = strings.Cut(ns, ":")
		return []any{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	}
	return []any{"system:authenticated"}
}

// userInfo is the user, groups and uid of user.
func userInfo(user string, s Server) obj {
	info := obj{"username": user, "groups": groups(user)}
	if uid := s.UID(user); uid != "" {
		info["uid"] = uid
	}
	return info
}

// self answers a SelfSubjectReview: who the sender is.
func self(req Request, s Server) obj {
	return obj{"kind": Self.Kind, "apiVersion": Self.APIVersion(),
		"metadata": obj{"creationTimestamp": req.Now},
		"status":   obj{"userInfo": userInfo(req.User, s)}}
}

// rules answers a SelfSubjectRulesReview: what the denials leave the
// sender. It must name a namespace.
func rules(req Request, s Server) (obj, *Refusal) {
	spec, _ := req.Body["spec"].(map[string]any)
	if ns, _ := spec["namespace"].(string); ns == "" {
		return nil, &Refusal{Message: "no namespace on request"}
	}
	meta := obj{}
	if req.NullCreationTimestamp {
		meta["creationTimestamp"] = nil
	}
	return obj{"kind": Rules.Kind, "apiVersion": Rules.APIVersion(), "metadata": meta, "spec": obj{},
		"status": s.Denials().Rules(req.User)}, nil
}

// token answers a TokenReview: the spec as sent, the sender's
// managedFields, and a status that names the token's user (its uid, its
// groups as in SelfSubjectReviews, the audience) or says "invalid bearer
// token". A review without a token is refused.
func token(req Request, s Server) (obj, *Refusal) {
	spec, _ := req.Body["spec"].(map[string]any)
	tok, _ := spec["token"].(string)
	if tok == "" {
		return nil, &Refusal{Message: "token is required for TokenReview in authentication"}
	}
	status := obj{"user": obj{}, "error": "invalid bearer token"}
	if user, ok := s.UserOf(tok); ok {
		status = obj{"authenticated": true, "user": userInfo(user, s), "audiences": []any{audience}}
	}
	return obj{"kind": Token.Kind, "apiVersion": Token.APIVersion(), "spec": spec, "status": status,
		"metadata": obj{"managedFields": managedFields(&Token, req, spec)}}, nil
}

// managedFields are the managedFields of a review as the real field
// manager records the sender's spec.
func managedFields(k *Kind, req Request, spec obj) []any {
	return []any{obj{"manager": req.Manager, "operation": "Update",
		"apiVersion": k.APIVersion(), "time": req.Now, "fieldsType": "FieldsV1",
		"fieldsV1": obj{"f:spec": specFields(spec, false)}}}
}

// specFields is the fieldsV1 of a review's spec as the real field
// manager records it: a field for each key, and "." in every object below
// spec (pointers to structs in the Go types; spec itself is a struct).
func specFields(m map[string]any, dot bool) obj {
	out := obj{}
	if dot {
		out["."] = obj{}
	}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out["f:"+k] = specFields(sub, true)
		} else {
			out["f:"+k] = obj{}
		}
	}
	return out
}

// UserInfo is the userInfo kubetest reports for user (username, uid,
// groups): in a review's status, and in the AdmissionReviews its
// webhooks are sent.
func UserInfo(user string, s Server) map[string]any { return userInfo(user, s) }
