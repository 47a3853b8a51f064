// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestNewListOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []kube.ListOption
		wantNS     string
		wantLabels string
		wantFields string
		wantLimit  int64
		wantCont   string
	}{
		{name: "none"},
		{name: "namespace and fields",
			opts:   []kube.ListOption{kube.InNamespace("ns"), kube.MatchingFields{"spec.owner": "a", "metadata.name": "x"}},
			wantNS: "ns", wantFields: "metadata.name=x,spec.owner=a"},
		{name: "labels are ANDed",
			opts:       []kube.ListOption{kube.MatchingLabels{"app": "web"}, kube.HasLabels{"tier"}, kube.MatchingLabelsSelector{kube.MustParseSelector("!canary")}},
			wantLabels: "app=web,!canary,tier"},
		{name: "fields are ANDed",
			opts:       []kube.ListOption{kube.MatchingFields{"a": "1"}, kube.MatchingFieldsSelector{mustFieldSelector(t, "b!=2")}},
			wantFields: "a=1,b!=2"},
		{name: "paging, last wins",
			opts:   []kube.ListOption{kube.Limit(10), kube.Continue("tok"), kube.Limit(20), kube.InNamespace("a"), kube.InNamespace("b")},
			wantNS: "b", wantLimit: 20, wantCont: "tok"},
		{name: "a ListOptions is an option",
			opts: []kube.ListOption{
				kube.ListOptions{Namespace: "ns", LabelSelector: kube.SelectorFromSet(map[string]string{"app": "web"}), Limit: 5},
				kube.MatchingLabels{"tier": "db"},
				kube.ListOptions{Continue: "c"},
			},
			wantNS: "ns", wantLabels: "app=web,tier=db", wantLimit: 5, wantCont: "c"},
		{name: "empty sets change nothing",
			opts:   []kube.ListOption{kube.InNamespace("ns"), kube.MatchingLabels{}, kube.MatchingFields(nil), kube.HasLabels{}},
			wantNS: "ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := kube.NewListOptions(tc.opts...)
			if o.Namespace != tc.wantNS || o.LabelSelector.String() != tc.wantLabels || o.FieldSelector.String() != tc.wantFields ||
				o.Limit != tc.wantLimit || o.Continue != tc.wantCont {
				t.Errorf("NewListOptions = ns %q labels %q fields %q limit %d continue %q, want %q %q %q %d %q",
					o.Namespace, o.LabelSelector, o.FieldSelector, o.Limit, o.Continue,
					tc.wantNS, tc.wantLabels, tc.wantFields, tc.wantLimit, tc.wantCont)
			}
		})
	}
}

func TestListOptionsAsOptionKeepsEveryField(t *testing.T) {
	full := kube.ListOptions{Namespace: "ns", LabelSelector: kube.MustParseSelector("a=b"), FieldSelector: mustFieldSelector(t, "c=d"),
		Limit: 3, Continue: "tok", ResourceVersion: "42", ResourceVersionMatch: kube.MatchNotOlderThan, MetadataOnly: true,
		TimeoutSeconds: 9, AllowWatchBookmarks: true, SendInitialEvents: true}
	if got := kube.NewListOptions(full); !reflect.DeepEqual(got, full) {
		t.Errorf("NewListOptions(full) = %+v, want %+v", got, full)
	}
}

func mustFieldSelector(t *testing.T, s string) kube.FieldSelector {
	t.Helper()
	f, err := kube.ParseFieldSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ExampleClient_List() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, cm := range []*kube.ConfigMap{
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "shop", "tier": "web"}}},
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "db", Labels: map[string]string{"app": "shop", "tier": "db"}}},
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "other"}},
	} {
		if err := c.Create(ctx, cm); err != nil {
			panic(err)
		}
	}

	var list kube.List[kube.ConfigMap]
	err = c.List(ctx, &list,
		kube.InNamespace("default"),
		kube.MatchingLabels{"app": "shop"},
		kube.MatchingFields{"metadata.name": "db"},
	)
	if err != nil {
		panic(err)
	}
	for _, cm := range list.Items {
		fmt.Println(cm.Name, cm.Labels["tier"])
	}
	// Output:
	// db db
}
