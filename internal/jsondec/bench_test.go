// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// The objects as the server writes them: a ConfigMap of about 1 KiB, a
// Pod of about 4 KiB, a custom resource, and a watch event's line.

func configMapJSON(i int) string {
	return fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%05d","namespace":"bench","uid":"6f1c0a52-3b9e-4d3c-9a57-%012d","resourceVersion":"%d","creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"bench","tier":"backend","shard":"%d"},"annotations":{"example.com/owner":"team-a"},"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:config.yaml":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:tier":{}}}}}]},"data":{"config.yaml":"%s","mode":"fast\nsafe","empty":""}}`,
		i, i, 1000+i, i%8, strings.Repeat("key: value\\n", 42))
}

func podJSON(i int) string {
	container := `{"name":"app-%d","image":"registry.example.com/app:v1.2.3","args":["--port=8080","--verbose"],"ports":[{"containerPort":8080,"protocol":"TCP"},{"containerPort":9090,"protocol":"TCP"}],"env":[{"name":"MODE","value":"prod"},{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"kube-api-access","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent","port":8080}`
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"pod-%05d","generateName":"app-7d9f8b-","namespace":"bench","uid":"0c3e1f4a-8d2b-4e6f-b1a7-%012d","resourceVersion":"%d","creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"bench","pod-template-hash":"7d9f8b"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"app-7d9f8b","uid":"9a8b7c6d-1e2f-3a4b-5c6d-7e8f9a0b1c2d","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}]},"spec":{"volumes":[{"name":"data","emptyDir":{}},{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],"containers":[%s,%s],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeName":"node-%d","priority":0,"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-21T04:48:12Z","reason":"PodReady","message":""},{"type":"ContainersReady","status":"True","lastTransitionTime":"2026-11-21T04:48:12Z","reason":"ContainersReady","message":""}],"podIP":"10.244.%d.%d","startTime":"2026-11-21T04:48:10Z","score":0.5,"ratio":1.25,"restarts":0}}`,
		i, i, 1000+i, fmt.Sprintf(container, 1), fmt.Sprintf(container, 2), i%16, i/256%256, i%256)
}

func widgetJSON(i int) string {
	return fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-%05d","namespace":"bench","uid":"5d4c3b2a-1f0e-4d9c-8b7a-%012d","resourceVersion":"%d","generation":3,"creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"bench"},"finalizers":["example.com/cleanup"]},"spec":{"replicas":%d,"selector":{"app":"bench"},"template":{"metadata":{"labels":{"app":"bench"}},"spec":{"containers":[{"name":"w","image":"w:1"}]}},"config":{"mode":"fast","limits":{"cpu":2,"burst":true},"zones":["a","b","c"]},"weights":[0.5,1.5,2.25]},"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"True","observedGeneration":3,"lastTransitionTime":"2026-11-21T04:48:12Z","reason":"Reconciled","message":"all replicas ready"}]}}`,
		i, i, 1000+i, i%5)
}

func eventLine(obj string) string { return `{"type":"MODIFIED","object":` + obj + `}` }

// event is the watch event line decoded in one go.
type event[T any] struct {
	Type   string `json:"type"`
	Object T      `json:"object"`
}

type benchInput struct {
	name  string
	items [][]byte
}

func benchInputs() []benchInput {
	var in []benchInput
	for _, k := range []struct {
		name string
		gen  func(int) string
	}{{"ConfigMap", configMapJSON}, {"Pod", podJSON}, {"Widget", widgetJSON}} {
		var items [][]byte
		for i := range 64 {
			items = append(items, []byte(k.gen(i)))
		}
		in = append(in, benchInput{k.name, items})
	}
	var events [][]byte
	for i := range 64 {
		events = append(events, []byte(eventLine(configMapJSON(i))))
	}
	return append(in, benchInput{"WatchEventConfigMap", events})
}

// BenchmarkDecode decodes objects one by one (a list's items, a watch's
// events), typed, metadata-only and Unstructured, with jsondec and with
// encoding/json into the same types.
//
//	go test -run '^$' -bench Decode -benchmem -count 5 -benchtime 300ms ./internal/jsondec/ | tee out.txt
//	benchstat -col /dec out.txt
func BenchmarkDecode(b *testing.B) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	decoders := []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"jsondec", dec.Unmarshal}, {"encoding-json", json.Unmarshal}}
	for _, in := range benchInputs() {
		typed := map[string]func() any{
			"ConfigMap":           func() any { return new(kube.ConfigMap) },
			"Pod":                 func() any { return new(pod) },
			"Widget":              func() any { return new(widget) },
			"WatchEventConfigMap": func() any { return new(event[kube.ConfigMap]) },
		}[in.name]
		meta, unstructured := func() any { return new(kube.PartialObjectMetadata) }, func() any { return new(kube.Unstructured) }
		if in.name == "WatchEventConfigMap" {
			meta = func() any { return new(event[kube.PartialObjectMetadata]) }
			unstructured = func() any { return new(event[kube.Unstructured]) }
		}
		size := 0
		for _, it := range in.items {
			size += len(it)
		}
		for _, target := range []struct {
			name string
			new  func() any
		}{{"typed", typed}, {"meta", meta}, {"unstructured", unstructured}} {
			for _, d := range decoders {
				b.Run(in.name+"/"+target.name+"/dec="+d.name, func(b *testing.B) {
					b.SetBytes(int64(size / len(in.items)))
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						if err := d.unmarshal(in.items[i%len(in.items)], target.new()); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestBenchInputsSame checks that the benchmarks' inputs decode alike.
func TestBenchInputsSame(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	for _, in := range benchInputs() {
		for _, it := range in.items[:4] {
			checkSame(t, dec, it)
		}
	}
}

// BenchmarkDecodeForCache decodes ConfigMaps and Pods typed as a cache
// would with the hooks: the strings of metadata that repeat interned
// (behind a mutex, as cache's interner) and managedFields skipped. Beside
// BenchmarkDecode's typed jsondec runs.
func BenchmarkDecodeForCache(b *testing.B) {
	var mu sync.Mutex
	interned := map[string]string{}
	dec := jsondec.New(jsondec.Options{
		Intern: func(s []byte) string {
			mu.Lock()
			defer mu.Unlock()
			if v, ok := interned[string(s)]; ok {
				return v
			}
			v := string(s)
			interned[v] = v
			return v
		},
		InternField: func(owner reflect.Type, name string) bool {
			switch owner {
			case reflect.TypeFor[kube.ObjectMeta]():
				return name == "namespace" || name == "generateName" || name == "labels" || name == "finalizers"
			case reflect.TypeFor[kube.OwnerReference]():
				return name == "apiVersion" || name == "kind"
			}
			return false
		},
		SkipField: func(owner reflect.Type, name string) bool {
			return owner == reflect.TypeFor[kube.ObjectMeta]() && name == "managedFields"
		},
	})
	for _, in := range benchInputs()[:2] {
		newV := map[string]func() any{
			"ConfigMap": func() any { return new(kube.ConfigMap) },
			"Pod":       func() any { return new(pod) },
		}[in.name]
		size := 0
		for _, it := range in.items {
			size += len(it)
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(size / len(in.items)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := dec.Unmarshal(in.items[i%len(in.items)], newV()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
