// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// seed creates cm-1..cm-n with labels app=demo and idx=i.
func (f *fixture) seed(t *testing.T, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		f.mustCreate(t, f.configMap(fmt.Sprintf("cm-%d", i), map[string]string{"app": "demo", "idx": fmt.Sprint(i)}, map[string]string{"k": fmt.Sprintf("v%d", i)}))
	}
}

func names[T any](items []T) []string {
	var out []string
	for i := range items {
		out = append(out, any(&items[i]).(kube.Object).GetObjectMeta().Name)
	}
	return out
}

func testPaging(t *testing.T, f *fixture) {
	f.seed(t, 5)
	var page kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &page, kube.ListOptions{Namespace: f.ns, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(page.Items)); got != "[cm-1 cm-2]" {
		t.Errorf("first page = %s, want [cm-1 cm-2]", got)
	}
	if page.Continue == "" || page.RemainingItemCount == nil || *page.RemainingItemCount != 3 {
		t.Errorf("first page continue %q remaining %v, want a token and 3", page.Continue, page.RemainingItemCount)
	}
	firstRV := page.ResourceVersion

	// A write between pages does not show: pages are consistent with the first.
	f.mustCreate(t, f.configMap("cm-9", nil, nil))
	var all []string
	all = append(all, names(page.Items)...)
	for page.Continue != "" {
		opts := kube.ListOptions{Namespace: f.ns, Limit: 2, Continue: page.Continue}
		if err := f.c.List(f.ctx, &page, opts); err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != firstRV {
			t.Errorf("page at rv %s, want the first page's %s", page.ResourceVersion, firstRV)
		}
		all = append(all, names(page.Items)...)
	}
	if got := fmt.Sprint(all); got != "[cm-1 cm-2 cm-3 cm-4 cm-5]" {
		t.Errorf("paged list = %s, want cm-1..cm-5 without cm-9", got)
	}

	var list kube.List[kube.ConfigMap]
	if err := kube.ListAll(f.ctx, f.c, &list, kube.ListOptions{Namespace: f.ns, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(list.Items)); got != "[cm-1 cm-2 cm-3 cm-4 cm-5 cm-9]" {
		t.Errorf("ListAll = %s, want all six", got)
	}

	// ListEach streams the same pages, item by item, full objects or
	// metadata only.
	for _, metadataOnly := range []bool{false, true} {
		var streamed []string
		opts := kube.ListOptions{Namespace: f.ns, Limit: 4, MetadataOnly: metadataOnly}
		newItem := func() kube.Object { return new(kube.ConfigMap) }
		if metadataOnly {
			newItem = func() kube.Object { return new(kube.PartialObjectMetadata) }
		}
		for {
			meta, err := f.c.ListEach(f.ctx, configMapKind, opts, newItem, func(o kube.Object, size int) error {
				if o.GroupVersionKind() != configMapKind || size < 100 {
					t.Errorf("ListEach item %s: kind %v, %d bytes; want a ConfigMap of its JSON's size", o.GetObjectMeta().Name, o.GroupVersionKind(), size)
				}
				if cm, ok := o.(*kube.ConfigMap); ok && cm.Data["k"] == "" && cm.Name != "cm-9" {
					t.Errorf("ListEach item %s has no data", cm.Name)
				}
				streamed = append(streamed, o.GetObjectMeta().Name)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if meta.Continue == "" {
				break
			}
			opts.Continue = meta.Continue
		}
		if got := fmt.Sprint(streamed); got != "[cm-1 cm-2 cm-3 cm-4 cm-5 cm-9]" {
			t.Errorf("ListEach (metadata only %v) = %s, want all six", metadataOnly, got)
		}
	}
}

func testSelectors(t *testing.T, f *fixture) {
	f.seed(t, 4)
	tests := []struct {
		label, field string
		want         string
	}{
		{"idx in (1,3)", "", "[cm-1 cm-3]"},
		{"app=demo,idx!=2", "", "[cm-1 cm-3 cm-4]"},
		{"!idx", "", "[]"},
		{"", "metadata.name=cm-2", "[cm-2]"},
		{"idx notin (1)", "metadata.name!=cm-4", "[cm-2 cm-3]"},
		{"", "metadata.namespace=" + f.ns, "[cm-1 cm-2 cm-3 cm-4]"},
	}
	for _, tt := range tests {
		opts := kube.ListOptions{Namespace: f.ns, LabelSelector: kube.MustParseSelector(tt.label)}
		if tt.field != "" {
			fs, err := kube.ParseFieldSelector(tt.field)
			if err != nil {
				t.Fatal(err)
			}
			opts.FieldSelector = fs
		}
		var list kube.List[kube.ConfigMap]
		if err := f.c.List(f.ctx, &list, opts); err != nil {
			t.Fatalf("List(%q, %q): %v", tt.label, tt.field, err)
		}
		if got := fmt.Sprint(names(list.Items)); got != tt.want {
			t.Errorf("List(%q, %q) = %s, want %s", tt.label, tt.field, got, tt.want)
		}
	}
	// Across namespaces, with a field selector on the namespace.
	fs, _ := kube.ParseFieldSelector("metadata.namespace=" + f.ns)
	var list kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &list, kube.ListOptions{FieldSelector: fs, LabelSelector: kube.MustParseSelector("idx=4")}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(list.Items)); got != "[cm-4]" {
		t.Errorf("cluster-wide List(idx=4, namespace=%s) = %s, want [cm-4]", f.ns, got)
	}
	bad, _ := kube.ParseFieldSelector("data.k=v1")
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, FieldSelector: bad}); !isBadRequest(err) {
		t.Errorf("List with an unsupported field selector = %v, want 400 BadRequest", err)
	}
}

func isBadRequest(err error) bool {
	se, ok := kube.AsStatusError(err)
	return ok && se.Status.Code == 400
}

func testPartialObjectMetadata(t *testing.T, f *fixture) {
	f.seed(t, 3)
	list := kube.List[kube.PartialObjectMetadata]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, LabelSelector: kube.MustParseSelector("app=demo")}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(list.Items)); got != "[cm-1 cm-2 cm-3]" {
		t.Fatalf("metadata list = %s", got)
	}
	item := list.Items[1]
	if item.Kind != "ConfigMap" || item.APIVersion != "v1" || item.Labels["idx"] != "2" || item.UID == "" {
		t.Errorf("metadata item = %+v, want kind ConfigMap with labels and uid", item)
	}
	var one kube.PartialObjectMetadata
	one.SetGroupVersionKind((&kube.ConfigMap{}).GroupVersionKind())
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "cm-3"}, &one); err != nil {
		t.Fatal(err)
	}
	if one.Name != "cm-3" || one.Kind != "ConfigMap" {
		t.Errorf("metadata Get = %+v", one)
	}
	// Unstructured lists take their kind from the list.
	ul := kube.List[kube.Unstructured]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	if err := f.c.List(f.ctx, &ul, kube.ListOptions{Namespace: f.ns, LabelSelector: kube.MustParseSelector("idx=1")}); err != nil {
		t.Fatal(err)
	}
	if len(ul.Items) != 1 {
		t.Fatalf("unstructured list has %d items, want 1", len(ul.Items))
	}
	if v, _ := ul.Items[0].Field("data", "k"); v != "v1" {
		t.Errorf("unstructured data.k = %v, want v1", v)
	}
}
