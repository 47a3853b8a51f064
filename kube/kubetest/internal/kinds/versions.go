// SPDX-License-Identifier: Apache-2.0

package kinds

import (
	"strconv"
	"strings"
)

// CompareVersions orders versions as Kubernetes prefers them: GA before
// beta before alpha, higher numbers first, then other strings by name.
func CompareVersions(a, b string) int {
	ka, kb := parseKubeVersion(a), parseKubeVersion(b)
	switch {
	case ka.ok && !kb.ok:
		return -1
	case !ka.ok && kb.ok:
		return 1
	case !ka.ok && !kb.ok:
		return strings.Compare(a, b)
	case ka.stability != kb.stability:
		return kb.stability - ka.stability
	case ka.major != kb.major:
		return kb.major - ka.major
	}
	return kb.minor - ka.minor
}

type kubeVersion struct {
	ok                      bool
	major, stability, minor int
}

func parseKubeVersion(v string) kubeVersion {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return kubeVersion{}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err := strconv.Atoi(rest[:i])
	if err != nil || major == 0 {
		return kubeVersion{}
	}
	kv := kubeVersion{ok: true, major: major, stability: 3}
	rest = rest[i:]
	if rest == "" {
		return kv
	}
	switch {
	case strings.HasPrefix(rest, "beta"):
		kv.stability, rest = 2, rest[4:]
	case strings.HasPrefix(rest, "alpha"):
		kv.stability, rest = 1, rest[5:]
	default:
		return kubeVersion{}
	}
	if kv.minor, err = strconv.Atoi(rest); err != nil || kv.minor == 0 {
		return kubeVersion{}
	}
	return kv
}

// SplitAPIVersion splits an apiVersion ("apps/v1", "v1") into its group
// and version.
func SplitAPIVersion(apiVersion string) (group, version string) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return "", apiVersion
	}
	return group, version
}
