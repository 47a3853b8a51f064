// SPDX-License-Identifier: Apache-2.0

package table

import (
	"encoding/json"
	"testing"
	"time"
)

// The expected cells of these tests were read from kube-apiserver 1.36.3
// (the harness) for the same objects; ages are made deterministic by
// printing at a fixed time.

// printedAt is when the rows are printed: 10 s after the objects'
// creation, 16:16:30 on the day their other timestamps are on.
var printedAt = time.Date(2026, 11, 23, 16, 16, 30, 0, time.UTC)

const createdAt = `"creationTimestamp":"2026-11-23T16:16:20Z"`

// cellsOf prints one object with the printer of res and returns its
// cells as JSON.
func cellsOf(t *testing.T, p *Printer, raw string) string {
	t.Helper()
	var o obj
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		t.Fatalf("bad test object %s: %v", raw, err)
	}
	cells, _ := p.Cells(o, printedAt)
	b, _ := json.Marshal(cells)
	return string(b)
}

func TestPodCells(t *testing.T) {
	for _, tc := range []struct{ name, spec, status, want string }{
		{"run1", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"podIPs":[{"ip":"10.1.0.5"}],"podIP":"10.1.0.5","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":true,"restartCount":2,"state":{"running":{"startedAt":"2026-11-23T10:00:00Z"}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-11-23T09:00:00Z","startedAt":"2026-11-23T08:00:00Z"}}},{"name":"b","image":"x","imageID":"","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-23T10:00:00Z"}}}]}`,
			`["run1","2/2","Running","2 (7h16m ago)","10s","10.1.0.5","<none>","<none>","<none>"]`},
		{"crash", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Running","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":false,"restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff"}}},{"name":"b","image":"x","imageID":"","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-23T10:00:00Z"}}}]}`,
			`["crash","1/2","CrashLoopBackOff","5","10s","<none>","<none>","<none>","<none>"]`},
		{"done", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Succeeded","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}},{"name":"b","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}}]}`,
			`["done","0/2","Completed","0","10s","<none>","<none>","<none>","<none>"]`},
		{"failed", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Failed","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":137,"signal":9,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}},{"name":"b","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}}]}`,
			`["failed","0/2","Signal:9","0","10s","<none>","<none>","<none>","<none>"]`},
		{"notready", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Running","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-23T10:00:00Z"}}},{"name":"b","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}}]}`,
			`["notready","1/2","NotReady","0","10s","<none>","<none>","<none>","<none>"]`},
		{"init1", `{"initContainers":[{"name":"i1","image":"x"},{"name":"i2","image":"x"},{"name":"side","image":"x","restartPolicy":"Always"}],"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Pending","initContainerStatuses":[{"name":"i1","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}},{"name":"i2","image":"x","imageID":"","ready":false,"restartCount":1,"state":{"running":{}}},{"name":"side","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}`,
			`["init1","0/2","Init:1/3","1","10s","<none>","<none>","<none>","<none>"]`},
		{"init2", `{"initContainers":[{"name":"i1","image":"x"},{"name":"i2","image":"x"},{"name":"side","image":"x","restartPolicy":"Always"}],"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Pending","initContainerStatuses":[{"name":"i1","image":"x","imageID":"","ready":false,"restartCount":3,"state":{"terminated":{"exitCode":2,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}},"lastState":{"terminated":{"exitCode":2,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:30:00Z"}}}]}`,
			`["init2","0/2","Init:ExitCode:2","3 (6h46m ago)","10s","<none>","<none>","<none>","<none>"]`},
		{"init3", `{"initContainers":[{"name":"i1","image":"x"},{"name":"i2","image":"x"},{"name":"side","image":"x","restartPolicy":"Always"}],"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Pending","initContainerStatuses":[{"name":"i1","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"ImagePullBackOff"}}}]}`,
			`["init3","0/2","Init:ImagePullBackOff","0","10s","<none>","<none>","<none>","<none>"]`},
		{"side", `{"initContainers":[{"name":"i1","image":"x"},{"name":"i2","image":"x"},{"name":"side","image":"x","restartPolicy":"Always"}],"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Running","conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"}],"initContainerStatuses":[{"name":"i1","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}},{"name":"i2","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:00:00Z"}}},{"name":"side","image":"x","imageID":"","ready":true,"started":true,"restartCount":4,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"startedAt":"2026-11-23T08:00:00Z","finishedAt":"2026-11-23T09:10:00Z"}}}],"containerStatuses":[{"name":"a","image":"x","imageID":"","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-23T10:00:00Z"}}}]}`,
			`["side","2/2","Running","4 (7h6m ago)","10s","<none>","<none>","<none>","<none>"]`},
		{"gated", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}`,
			`["gated","0/2","SchedulingGated","0","10s","<none>","<none>","<none>","<none>"]`},
		{"evicted", `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`, `{"phase":"Failed","reason":"Evicted","message":"x"}`,
			`["evicted","0/2","Evicted","0","10s","<none>","<none>","<none>","<none>"]`},
		{"nom", `{"containers":[{"name":"a","image":"x"}],"nodeName":"n1","readinessGates":[{"conditionType":"x.io/a"},{"conditionType":"x.io/b"}]}`, `{"phase":"Pending","nominatedNodeName":"n2","conditions":[{"type":"x.io/a","status":"True"},{"type":"x.io/b","status":"False"}]}`,
			`["nom","0/1","Pending","0","10s","<none>","n1","n2","1/2"]`},
		{"term", `{"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Pending"}`,
			`["term","0/1","Terminating","0","10s","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"]`},
	} {
		meta := `{"name":"` + tc.name + `",` + createdAt
		if tc.name == "term" {
			meta += `,"deletionTimestamp":"2026-11-23T16:16:25Z"`
		}
		raw := `{"apiVersion":"v1","kind":"Pod","metadata":` + meta + `},"spec":` + tc.spec + `,"status":` + tc.status + `}`
		var want []any
		_ = json.Unmarshal([]byte(tc.want), &want)
		wantJSON, _ := json.Marshal(want)
		if got := cellsOf(t, builtinPrinters["/pods"], raw); got != string(wantJSON) {
			t.Errorf("pod %s: cells %s, want %s", tc.name, got, wantJSON)
		}
	}
}

func TestBuiltinCells(t *testing.T) {
	for _, tc := range []struct{ printer, object, want string }{
		{"/services", `{"metadata":{"name":"svc-ext",` + createdAt + `},"spec":{"type":"ExternalName","externalName":"example.com"}}`,
			`["svc-ext","ExternalName","<none>","example.com","<none>","10s","<none>"]`},
		{"/services", `{"metadata":{"name":"svc-headless",` + createdAt + `},"spec":{"clusterIP":"None","selector":{"b":"y","app":"x"},"ports":[{"port":80,"name":"http"},{"port":53,"protocol":"UDP","name":"dns"}]}}`,
			`["svc-headless","ClusterIP","None","<none>","80/TCP,53/UDP","10s","app=x,b=y"]`},
		{"/services", `{"metadata":{"name":"svc-ip",` + createdAt + `},"spec":{"type":"ClusterIP","clusterIP":"10.0.0.201","clusterIPs":["10.0.0.201"],"externalIPs":["1.2.3.4","5.6.7.8"],"ports":[{"port":443,"protocol":"TCP","targetPort":8443}]}}`,
			`["svc-ip","ClusterIP","10.0.0.201","1.2.3.4,5.6.7.8","443/TCP","10s","<none>"]`},
		{"/services", `{"metadata":{"name":"svc-np",` + createdAt + `},"spec":{"type":"NodePort","clusterIP":"10.0.0.202","ports":[{"port":80,"nodePort":30080}]}}`,
			`["svc-np","NodePort","10.0.0.202","<none>","80:30080/TCP","10s","<none>"]`},
		{"/services", `{"metadata":{"name":"svc-lb",` + createdAt + `},"spec":{"type":"LoadBalancer","clusterIP":"10.0.0.203","ports":[{"port":80,"nodePort":30081}]}}`,
			`["svc-lb","LoadBalancer","10.0.0.203","<pending>","80:30081/TCP","10s","<none>"]`},
		{"/services", `{"metadata":{"name":"svc-lb",` + createdAt + `},"spec":{"type":"LoadBalancer","clusterIP":"10.0.0.203","ports":[{"port":80,"nodePort":30081}]},"status":{"loadBalancer":{"ingress":[{"ip":"9.9.9.9"},{"hostname":"lb.example.com"},{"ip":"1.1.1.1"},{"ip":"9.9.9.9"}]}}}`,
			`["svc-lb","LoadBalancer","10.0.0.203","1.1.1.1,9.9.9.9,lb.example.com","80:30081/TCP","10s","<none>"]`},
		{"/secrets", `{"metadata":{"name":"s1",` + createdAt + `},"type":"Opaque","data":{"a":"Yg==","c":"ZA=="}}`,
			`["s1","Opaque",2,"10s"]`},
		{"/configmaps", `{"metadata":{"name":"cm1",` + createdAt + `},"data":{"a":"b","c":"d"},"binaryData":{"x":"AAE="}}`,
			`["cm1",3,"10s"]`},
		{"/namespaces", `{"metadata":{"name":"tdel",` + createdAt + `},"status":{"phase":"Terminating"}}`,
			`["tdel","Terminating","10s"]`},
		{"/serviceaccounts", `{"metadata":{"name":"sa1",` + createdAt + `}}`, `["sa1","10s"]`},
		{"coordination.k8s.io/leases", `{"metadata":{"name":"l1",` + createdAt + `},"spec":{"holderIdentity":"me"}}`, `["l1","me","10s"]`},
		{"coordination.k8s.io/leases", `{"metadata":{"name":"l2",` + createdAt + `},"spec":{}}`, `["l2","","10s"]`},
		{"apps/deployments", `{"metadata":{"name":"d1",` + createdAt + `},"spec":{"selector":{"matchLabels":{"app":"d1","tier":"web"},"matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},{"key":"canary","operator":"DoesNotExist"}]},"template":{"spec":{"containers":[{"name":"a","image":"nginx:1"},{"name":"b","image":"redis"}]}}}}`,
			`["d1","0/1",0,0,"10s","a,b","nginx:1,redis","app=d1,!canary,env in (dev,prod),tier=web"]`},
		{"apps/deployments", `{"metadata":{"name":"d2",` + createdAt + `},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"d2"}},"template":{"spec":{"containers":[{"name":"a","image":"nginx:1"}]}}},"status":{"replicas":3,"readyReplicas":2,"updatedReplicas":3,"availableReplicas":1}}`,
			`["d2","2/3",3,1,"10s","a","nginx:1","app=d2"]`},
		{"/events", `{"apiVersion":"v1","metadata":{"name":"e1",` + createdAt + `},"involvedObject":{"kind":"Pod","name":"p1","fieldPath":"spec.containers{c}"},"reason":"Started","message":"  Started container c \n","type":"Normal","source":{"component":"kubelet","host":"n1"},"firstTimestamp":"2026-11-23T10:00:00Z","lastTimestamp":"2026-11-23T11:00:00Z","count":4}`,
			`["5h16m","Normal","Started","pod/p1","spec.containers{c}","kubelet, n1","Started container c","6h16m",4,"e1"]`},
		{"/events", `{"apiVersion":"v1","metadata":{"name":"e2",` + createdAt + `},"involvedObject":{"kind":"Pod","namespace":"tk"},"reason":"X","message":"m","type":"Warning","eventTime":"2026-11-23T10:00:00.123456Z","reportingComponent":"ctrl","reportingInstance":"i-1","action":"Do"}`,
			`["6h16m","Warning","X","pod","","ctrl, i-1","m","6h16m",1,"e2"]`},
		{"events.k8s.io/events", `{"apiVersion":"events.k8s.io/v1","metadata":{"name":"e3",` + createdAt + `},"eventTime":"2026-11-23T10:00:00.000000Z","series":{"count":7,"lastObservedTime":"2026-11-23T12:00:00.000000Z"},"reportingController":"kubeloop.dev/x","reportingInstance":"x-1","action":"Reconcile","reason":"Synced","note":"synced it","type":"Normal","regarding":{"apiVersion":"v1","kind":"ConfigMap","name":"cm1"}}`,
			`["4h16m","Normal","Synced","configmap/cm1","","kubeloop.dev/x, x-1","synced it","6h16m",7,"e3"]`},
		{"/resourcequotas", `{"metadata":{"name":"q1",` + createdAt + `},"status":{"hard":{"pods":"10","requests.cpu":"1500m","requests.memory":"1024Mi","limits.cpu":"2000m","limits.memory":"2.5Gi","requests.storage":"1e3","count/configmaps":"12000","limits.ephemeral-storage":"0.5Ki","cpu":"0.1","memory":"1000Ki","services":10},"used":{"pods":"3","requests.cpu":"0.5","limits.memory":"1536Mi","memory":"2048"}}}`,
			`["q1","count/configmaps: 0/12k, cpu: 0/100m, memory: 2048/1000Ki, pods: 3/10, requests.cpu: 500m/1500m, requests.memory: 0/1Gi, requests.storage: 0/1e3, services: 0/10","limits.cpu: 0/2, limits.ephemeral-storage: 0/512, limits.memory: 1536Mi/2560Mi","10s"]`},
		{"/limitranges", `{"metadata":{"name":"lr",` + createdAt + `}}`, `["lr","2026-11-23T16:16:20Z"]`},
	} {
		p := builtinPrinters[tc.printer]
		if p == nil {
			p = defaultPrinter
		}
		var want []any
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatalf("bad expectation %s", tc.want)
		}
		wantJSON, _ := json.Marshal(want)
		if got := cellsOf(t, p, tc.object); got != string(wantJSON) {
			t.Errorf("%s %s: cells %s, want %s", tc.printer, tc.object[:40], got, wantJSON)
		}
	}
}
