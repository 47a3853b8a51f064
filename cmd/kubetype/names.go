// SPDX-License-Identifier: Apache-2.0

package main

import (
	"go/token"
	"strings"
	"unicode"
)

// initialisms are the leading words of JSON names that Go writes in
// capitals (apiVersion is APIVersion); Kubernetes' JSON names already
// capitalise those that come later (clusterIP, podIPs).
var initialisms = map[string]string{
	"api": "API", "cidr": "CIDR", "cpu": "CPU", "dns": "DNS", "fs": "FS", "gid": "GID",
	"grpc": "GRPC", "http": "HTTP", "https": "HTTPS", "id": "ID", "ip": "IP", "ips": "IPs",
	"json": "JSON", "os": "OS", "pid": "PID", "sctp": "SCTP", "tcp": "TCP", "tls": "TLS",
	"ttl": "TTL", "udp": "UDP", "uid": "UID", "uri": "URI", "url": "URL", "uuid": "UUID",
}

// goField returns the exported Go name of a JSON field name: its first
// word capitalised (or an initialism), characters Go does not take
// dropped with a capital after them ($ref is Ref, x-kubernetes-list-type
// XKubernetesListType), and a leading digit prefixed with F.
func goField(name string) string {
	var words []string
	for _, w := range strings.FieldsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		words = append(words, capitalise(w))
	}
	out := strings.Join(words, "")
	if out == "" {
		return "Field"
	}
	if unicode.IsDigit(rune(out[0])) {
		out = "F" + out
	}
	return out
}

// capitalise writes w's leading lowercase run as an initialism when it is
// one, else capitalises its first letter.
func capitalise(w string) string {
	lead := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) })
	if lead < 0 {
		lead = len(w)
	}
	if up, ok := initialisms[w[:lead]]; ok {
		return up + w[lead:]
	}
	r := []rune(w)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// typeName returns the Go name of a schema: the last part of its name
// ("io.k8s.api.apps.v1.DeploymentSpec" is DeploymentSpec).
func typeName(schemaName string) string {
	return goField(schemaName[strings.LastIndex(schemaName, ".")+1:])
}

// qualifiedName is typeName with the group and version in front
// (AutoscalingV2CrossVersionObjectReference), for a name already taken.
func qualifiedName(schemaName string) string {
	parts := strings.Split(schemaName, ".")
	if len(parts) < 3 {
		return typeName(schemaName) + "2"
	}
	return goField(parts[len(parts)-3]) + goField(parts[len(parts)-2]) + typeName(schemaName)
}

func isIdent(s string) bool { return token.IsIdentifier(s) && !token.IsKeyword(s) }

// comment writes text as a Go comment, wrapped at about 76 columns, each
// line prefixed by indent.
func comment(b *strings.Builder, text, indent string) {
	for i, para := range paragraphs(text) {
		if i > 0 {
			b.WriteString(indent + "//\n")
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > 76 {
				b.WriteString(indent + "// " + line + "\n")
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			b.WriteString(indent + "// " + line + "\n")
		}
	}
}

// paragraphs splits text at its line breaks, without empty paragraphs.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n") {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}
