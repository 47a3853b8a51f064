// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"regexp"
	"strings"
	"testing"
)

// volatile are the parts of kubectl's output that differ between any two
// runs, with what replaces them.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`https://127\.0\.0\.1:\d+`), "https://127.0.0.1:PORT"},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "UID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "TIME"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4}`), "TIME"},
	{regexp.MustCompile(`(?m)^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ `), "${1}MMDD TIME PID "}, // klog's header
	{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}`), "DATE"},
	{regexp.MustCompile(`(?m)(resourceVersion"?:\s*)"?\d+"?`), `${1}"RV"`},
	{regexp.MustCompile(`(Resource Version:\s*)\d+`), "${1}RV"},
	{regexp.MustCompile(`(?m)(^|[\s(])(\d+m)?\d+s\b`), "${1}AGE"},
	{regexp.MustCompile(`(?m)(^|[\s(])[1-9]\d?m($|[\s)])`), "${1}AGE${2}"},
	{regexp.MustCompile(`\b10\.0\.0\.\d+\b`), "IP"},
	{regexp.MustCompile(`(Server Version:\s*)v\S+`), "${1}VERSION"},
	{regexp.MustCompile(`(/tmp/[A-Za-z-]+-)\d+`), "${1}N"},
	{regexp.MustCompile(`\bgen-[bcdfghjklmnpqrstvwxz2456789]{5}\b`), "gen-XXXXX"},
	{regexp.MustCompile(`[ \t]+`), " "},
	{regexp.MustCompile(`(?m) +$`), ""},
}

// normaliseKubectl masks what differs between any two runs: the random
// token of the names, the target's directory, and the volatile fields;
// runs of blanks become one, so that column widths do not matter.
func normaliseKubectl(s string, tg *kubectlTarget) string {
	s = strings.ReplaceAll(s, tg.dir, "DIR")
	s = strings.ReplaceAll(s, strings.TrimPrefix(tg.ns, "kubectl-"), "TOKEN")
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

func TestNormaliseKubectl(t *testing.T) {
	tg := &kubectlTarget{ns: "kubectl-0a1b2c3d", dir: "/tmp/TestKubectl123/001"}
	for _, tc := range []struct{ in, want string }{
		{"NAME    DATA   AGE\nsettings   1      5s\nother   0   2m30s  \nlast 0 2m", "NAME DATA AGE\nsettings 1 AGE\nother 0 AGE\nlast 0 AGE"},
		{"Container  cpu  -  -  500m  500m  -", "Container cpu - - 500m 500m -"},
		{`resourceVersion: "123"` + "\n" + `"resourceVersion": "45",`, `resourceVersion: "RV"` + "\n" + `"resourceVersion": "RV",`},
		{"uid: 6a3aa89c-b72d-4418-8851-ea921a4a92e1", "uid: UID"},
		{`creationTimestamp: "2026-11-23T16:18:26Z" at 2026-11-23T16:19:21.479985Z`, `creationTimestamp: "TIME" at TIME`},
		{"CreationTimestamp:  Mon, 23 Nov 2026 16:20:35 +0000", "CreationTimestamp: DATE"},
		{"namespace/kubectl-0a1b2c3d in /tmp/TestKubectl123/001/a.yaml", "namespace/kubectl-TOKEN in DIR/a.yaml"},
		{"running at https://127.0.0.1:40561", "running at https://127.0.0.1:PORT"},
		{"Server Version: v1.36.0-kubetest", "Server Version: VERSION"},
		{"CLUSTER-IP 10.0.0.17", "CLUSTER-IP IP"},
		{"Resource Version:  780", "Resource Version: RV"},
		{"--- /tmp/LIVE-1234/v1.ConfigMap 2026-11-23 16:20:35.123456 +0000", "--- /tmp/LIVE-N/v1.ConfigMap TIME"},
		{"W1127 12:49:10.496230    6712 prune.go:71] Deprecated", "WMMDD TIME PID prune.go:71] Deprecated"},
	} {
		if got := normaliseKubectl(tc.in, tg); got != tc.want {
			t.Errorf("normaliseKubectl(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
