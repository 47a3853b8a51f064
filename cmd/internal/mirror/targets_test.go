// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func TestTargets(t *testing.T) {
	now := kube.Now()
	namespaces := []kube.PartialObjectMetadata{
		{ObjectMeta: kube.ObjectMeta{Name: "default", Labels: map[string]string{"env": "dev"}}},
		{ObjectMeta: kube.ObjectMeta{Name: "team-a"}},
		{ObjectMeta: kube.ObjectMeta{Name: "team-b", Labels: map[string]string{"env": "dev"}}},
		{ObjectMeta: kube.ObjectMeta{Name: "team-c", Labels: map[string]string{"env": "prod"}}},
		{ObjectMeta: kube.ObjectMeta{Name: "leaving", Labels: map[string]string{"env": "dev"}, DeletionTimestamp: &now}},
	}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        string // the targets, joined by ","
		err         string // in the error, "" for none
	}{
		{"none", nil, "", ""},
		{"names", map[string]string{AnnotationTo: " team-c , team-a,team-a,,"}, "team-a,team-c", ""},
		{"names that do not exist", map[string]string{AnnotationTo: "team-a,nowhere"}, "team-a", ""},
		{"never home", map[string]string{AnnotationTo: "default,team-a"}, "team-a", ""},
		{"selector, never home or terminating", map[string]string{AnnotationToSelector: "env=dev"}, "team-b", ""},
		{"set selector", map[string]string{AnnotationToSelector: "env in (dev,prod)"}, "team-b,team-c", ""},
		{"both", map[string]string{AnnotationTo: "team-a", AnnotationToSelector: "env=prod"}, "team-a,team-c", ""},
		{"empty selector selects nothing", map[string]string{AnnotationToSelector: " "}, "", ""},
		{"bad name", map[string]string{AnnotationTo: "team-a,Team_B"}, "", `"Team_B" is not a namespace name`},
		{"bad selector", map[string]string{AnnotationToSelector: "env in (dev"}, "", "annotation " + AnnotationToSelector},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := parseTargets(tc.annotations)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("parseTargets(%q) error = %v, want one containing %q", tc.annotations, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseTargets(%q) = %v", tc.annotations, err)
			}
			if got := strings.Join(targets(spec, "default", namespaces), ","); got != tc.want {
				t.Errorf("targets(%q) = %q, want %q", tc.annotations, got, tc.want)
			}
		})
	}
}

func TestSourceAndCopy(t *testing.T) {
	copyLabels := map[string]string{LabelOfKind: "Secret", LabelOfNamespace: "default", LabelOfName: "s"}
	for _, tc := range []struct {
		name              string
		meta              kube.ObjectMeta
		source, copy      bool
		sourceOfSecret    string // "" when not a copy of a Secret
		sourceOfConfigMap string
	}{
		{"plain", kube.ObjectMeta{}, false, false, "", ""},
		{"source", kube.ObjectMeta{Annotations: map[string]string{AnnotationTo: "a"}}, true, false, "", ""},
		{"selector source", kube.ObjectMeta{Annotations: map[string]string{AnnotationToSelector: ""}}, true, false, "", ""},
		{"copy", kube.ObjectMeta{Labels: copyLabels}, false, true, "default/s", ""},
		{"annotated copy", kube.ObjectMeta{Labels: copyLabels, Annotations: map[string]string{AnnotationTo: "a"}}, false, true, "default/s", ""},
		{"half a copy", kube.ObjectMeta{Labels: map[string]string{LabelOfName: "s"}}, false, true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSource(&tc.meta); got != tc.source {
				t.Errorf("isSource(%+v) = %v, want %v", tc.meta, got, tc.source)
			}
			if got := isCopy(&tc.meta); got != tc.copy {
				t.Errorf("isCopy(%+v) = %v, want %v", tc.meta, got, tc.copy)
			}
			for kind, want := range map[string]string{"Secret": tc.sourceOfSecret, "ConfigMap": tc.sourceOfConfigMap} {
				key, ok := sourceOf(&tc.meta, kind)
				if got := key.String(); !ok && got != "" || ok && got != want || ok != (want != "") {
					t.Errorf("sourceOf(%+v, %s) = %q, %v, want %q", tc.meta, kind, got, ok, want)
				}
			}
		})
	}
}
