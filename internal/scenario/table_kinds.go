// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// This file checks the columns and cells of the Tables of every served
// built-in kind, and of a custom resource with printer columns of each
// type, for objects made to show the printers' cases (pod statuses,
// service types, event series...). Services get explicit cluster IPs
// ("None") and no node ports, so that nothing depends on allocation.

// tableCase is the expected Table of one list.
type tableCase struct {
	path    string // the list, relative to the namespace's path unless it starts with /
	columns string
	descs   string // see table.columns
	rows    []string
}

func (f *fixture) checkTables(t *testing.T, cases []tableCase) {
	t.Helper()
	for _, tc := range cases {
		path := tc.path
		if !strings.HasPrefix(path, "/") {
			path = "/api/v1/namespaces/" + f.ns + "/" + path
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		tb := f.getTable(t, path+sep+"includeObject=None", acceptTableKubectl)
		cols, descs := tb.columns()
		if cols != tc.columns || descs != tc.descs {
			t.Errorf("%s: columns %s (descriptions %s), want %s (%s)", tc.path, cols, descs, tc.columns, tc.descs)
		}
		if got, want := strings.Join(tb.rows(), "\n"), strings.Join(tc.rows, "\n"); got != want {
			t.Errorf("%s: rows\n%s\nwant\n%s", tc.path, got, want)
		}
	}
}

// ago is the RFC 3339 time d before now, written to the second (earlier, so ages
// never round down); times with a fraction added get a margin of their own.
func ago(d time.Duration) string { return time.Now().UTC().Add(-d).Format(time.RFC3339) }

func testTableBuiltins(t *testing.T, f *fixture) {
	ns := "/api/v1/namespaces/" + f.ns
	f.post(t, ns+"/configmaps", `{"metadata":{"name":"cm"},"data":{"a":"b","c":"d"},"binaryData":{"x":"AAE="}}`)
	f.post(t, ns+"/secrets", `{"metadata":{"name":"s1"},"stringData":{"a":"b"},"data":{"c":"ZA=="}}`)
	f.post(t, ns+"/secrets", `{"metadata":{"name":"s2"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`)
	f.post(t, ns+"/serviceaccounts", `{"metadata":{"name":"sa"}}`)
	f.post(t, ns+"/services", `{"metadata":{"name":"headless"},"spec":{"clusterIP":"None","selector":{"b":"y","app":"x"},"ports":[{"port":80,"name":"http"},{"port":53,"protocol":"UDP","name":"dns"}]}}`)
	f.post(t, ns+"/services", `{"metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`)
	apps := "/apis/apps/v1/namespaces/" + f.ns + "/deployments"
	f.post(t, apps, `{"metadata":{"name":"d1"},"spec":{"selector":{"matchLabels":{"app":"d1","tier":"web"},"matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},{"key":"canary","operator":"DoesNotExist"}]},"template":{"metadata":{"labels":{"app":"d1","tier":"web","env":"prod"}},"spec":{"containers":[{"name":"a","image":"nginx:1"},{"name":"b","image":"redis"}]}}}}`)
	f.post(t, apps, `{"metadata":{"name":"d2"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"d2"}},"template":{"metadata":{"labels":{"app":"d2"}},"spec":{"containers":[{"name":"a","image":"nginx:1"}]}}}}`)
	f.patch(t, apps+"/d2/status", `{"status":{"replicas":3,"readyReplicas":2,"updatedReplicas":3,"availableReplicas":1}}`)
	leases := "/apis/coordination.k8s.io/v1/namespaces/" + f.ns + "/leases"
	f.post(t, leases, `{"metadata":{"name":"held"},"spec":{"holderIdentity":"me"}}`)
	f.post(t, leases, `{"metadata":{"name":"free"},"spec":{}}`)
	f.post(t, ns+"/events", `{"metadata":{"name":"e1","labels":{"api":"core"}},"involvedObject":{"kind":"Pod","name":"p1","namespace":"`+f.ns+`","fieldPath":"spec.containers{c}"},"reason":"Started","message":"  Started container c \n","type":"Normal","source":{"component":"kubelet","host":"n1"},"firstTimestamp":"`+ago(3*time.Hour)+`","lastTimestamp":"`+ago(2*time.Hour)+`","count":4}`)
	f.post(t, ns+"/events", `{"metadata":{"name":"e2","labels":{"api":"core"}},"involvedObject":{"kind":"Pod","namespace":"`+f.ns+`"},"reason":"X","message":"m","type":"Warning","eventTime":"`+strings.TrimSuffix(ago(90*time.Minute+30*time.Second), "Z")+`.123456Z","reportingComponent":"ctrl","reportingInstance":"i-1","action":"Do"}`)
	f.post(t, "/apis/events.k8s.io/v1/namespaces/"+f.ns+"/events", `{"metadata":{"name":"e3","labels":{"api":"events"}},"eventTime":"`+strings.TrimSuffix(ago(3*time.Hour), "Z")+`.000000Z","series":{"count":7,"lastObservedTime":"`+strings.TrimSuffix(ago(time.Hour), "Z")+`.000000Z"},"reportingController":"kubeloop.dev/x","reportingInstance":"x-1","action":"Reconcile","reason":"Synced","note":"synced it","type":"Normal","regarding":{"apiVersion":"v1","kind":"ConfigMap","namespace":"`+f.ns+`","name":"cm"}}`)
	f.pods(t)

	const (
		name = "Name:string:name:0"
		age  = "Age:string::0"
	)
	// 1.33 counts a service account's secrets, and describes a
	// Deployment's selector without "It must match the pod template's
	// labels."
	saColumns, saDescs, saRow, deployDescs := name+","+age, "bc025c20d637", `["sa","<age>"]`, "5cde873c3abf"
	if f.minor(t) <= minorOldest {
		saColumns, saDescs, saRow, deployDescs = name+",Secrets:string::0,"+age, "39c5a19c97e5", `["sa",0,"<age>"]`, "7c2149381741"
	}
	eventColumns := "Last Seen:string::0,Type:string::0,Reason:string::0,Object:string::0,Subobject:string::1,Source:string::1,Message:string::0,First Seen:string::1,Count:string::1,Name:string:name:1"
	f.checkTables(t, []tableCase{
		{"/api/v1/namespaces?fieldSelector=metadata.name%3D" + f.ns, name + ",Status:string::0," + age, "ff1233903e4d",
			[]string{`["` + f.ns + `","Active","<age>"]`}},
		{"configmaps", name + ",Data:string::0," + age, "3b599fa6c46f", []string{`["cm",3,"<age>"]`}},
		{"secrets", name + ",Type:string::0,Data:string::0," + age, "315373524ba7",
			[]string{`["s1","Opaque",2,"<age>"]`, `["s2","kubernetes.io/tls",2,"<age>"]`}},
		{"serviceaccounts?fieldSelector=metadata.name%3Dsa", saColumns, saDescs, []string{saRow}},
		{"services", name + ",Type:string::0,Cluster-IP:string::0,External-IP:string::0,Port(s):string::0," + age + ",Selector:string::1", "2bcbd0bd950f",
			[]string{`["ext","ExternalName","<none>","example.com","<none>","<age>","<none>"]`,
				`["headless","ClusterIP","None","<none>","80/TCP,53/UDP","<age>","app=x,b=y"]`}},
		{"/apis/apps/v1/namespaces/" + f.ns + "/deployments", name + ",Ready:string::0,Up-to-date:string::0,Available:string::0," + age +
			",Containers:string::1,Images:string::1,Selector:string::1", deployDescs,
			[]string{`["d1","0/1",0,0,"<age>","a,b","nginx:1,redis","app=d1,!canary,env in (dev,prod),tier=web"]`,
				`["d2","2/3",3,1,"<age>","a","nginx:1","app=d2"]`}},
		{leases, name + ",Holder:string::0," + age, "d2ec76931700", []string{`["free","","<age>"]`, `["held","me","<age>"]`}},
		{"events?labelSelector=api%3Dcore", eventColumns, "68053b24409c",
			[]string{`["120m","Normal","Started","pod/p1","spec.containers{c}","kubelet, n1","Started container c","3h",4,"e1"]`,
				`["90m","Warning","X","pod","","ctrl, i-1","m","90m",1,"e2"]`}},
		{"/apis/events.k8s.io/v1/namespaces/" + f.ns + "/events?labelSelector=api%3Devents", eventColumns, "68053b24409c",
			[]string{`["60m","Normal","Synced","configmap/cm","","kubeloop.dev/x, x-1","synced it","3h",7,"e3"]`}},
		{"pods", name + ",Ready:string::0,Status:string::0,Restarts:string::0," + age +
			",IP:string::1,Node:string::1,Nominated Node:string::1,Readiness Gates:string::1", "583f6a793a7a",
			[]string{
				`["crash","1/2","CrashLoopBackOff","5","<age>","<none>","<none>","<none>","<none>"]`,
				`["done","0/2","Completed","0","<age>","<none>","<none>","<none>","<none>"]`,
				`["gated","0/1","SchedulingGated","0","<age>","<none>","n1","<none>","1/2"]`,
				`["init","0/2","Init:ExitCode:2","3 (5h ago)","<age>","<none>","<none>","<none>","<none>"]`,
				`["plain","0/1","Pending","0","<age>","<none>","<none>","<none>","<none>"]`,
				`["run","2/2","Running","2 (5h ago)","<age>","10.1.0.5","<none>","<none>","<none>"]`,
				`["term","0/1","Terminating","0","<age>","<none>","<none>","<none>","<none>"]`,
			}},
	})
	tb := f.getTable(t, "/api/v1/namespaces/"+f.ns+"/pods/done", acceptTable)
	if c := tb.Rows[0].Conditions; len(c) != 1 || c[0]["type"] != "Completed" || c[0]["reason"] != "Succeeded" {
		t.Errorf("row conditions of a succeeded pod = %v, want Completed Succeeded", c)
	}
	f.optionalKinds(t)
}

// pods creates pods in the states the pod printer tells apart, their
// statuses written as a kubelet would.
func (f *fixture) pods(t *testing.T) {
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	two := `{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]}`
	run := `{"running":{"startedAt":"` + ago(time.Hour) + `"}}`
	for _, p := range []struct{ name, spec, status string }{
		{"plain", `{"containers":[{"name":"a","image":"x"}]}`, ""},
		{"run", two, `{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"podIPs":[{"ip":"10.1.0.5"}],"podIP":"10.1.0.5","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":true,"restartCount":2,"state":` + run + `,"lastState":{"terminated":{"exitCode":1,"startedAt":"` + ago(6*time.Hour) + `","finishedAt":"` + ago(5*time.Hour) + `"}}},{"name":"b","image":"x","imageID":"","ready":true,"restartCount":0,"state":` + run + `}]}`},
		{"crash", two, `{"phase":"Running","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":false,"restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff"}}},{"name":"b","image":"x","imageID":"","ready":true,"restartCount":0,"state":` + run + `}]}`},
		{"done", two, `{"phase":"Succeeded","containerStatuses":[{"name":"a","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"` + ago(2*time.Hour) + `","finishedAt":"` + ago(time.Hour) + `"}}},{"name":"b","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"` + ago(2*time.Hour) + `","finishedAt":"` + ago(time.Hour) + `"}}}]}`},
		{"init", `{"initContainers":[{"name":"i1","image":"x"},{"name":"side","image":"x","restartPolicy":"Always"}],"containers":[{"name":"a","image":"x"}]}`, `{"phase":"Pending","initContainerStatuses":[{"name":"i1","image":"x","imageID":"","ready":false,"restartCount":3,"state":{"terminated":{"exitCode":2,"startedAt":"` + ago(6*time.Hour) + `","finishedAt":"` + ago(5*time.Hour) + `"}},"lastState":{"terminated":{"exitCode":2,"startedAt":"` + ago(6*time.Hour) + `","finishedAt":"` + ago(5*time.Hour) + `"}}}]}`},
		{"gated", `{"containers":[{"name":"a","image":"x"}],"nodeName":"n1","readinessGates":[{"conditionType":"x.io/a"},{"conditionType":"x.io/b"}]}`, `{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"},{"type":"x.io/a","status":"True"},{"type":"x.io/b","status":"False"}]}`},
	} {
		f.post(t, pods, `{"metadata":{"name":"`+p.name+`"},"spec":`+p.spec+`}`)
		if p.status != "" {
			f.patch(t, pods+"/"+p.name+"/status", `{"status":`+p.status+`}`)
		}
	}
	f.post(t, pods, `{"metadata":{"name":"term","finalizers":["kubeloop.dev/hold"]},"spec":{"containers":[{"name":"a","image":"x"}]}}`)
	t.Cleanup(func() {
		_, _ = f.raw(t, "PATCH", pods+"/term", `{"metadata":{"finalizers":null}}`, "", "application/merge-patch+json")
	})
	if code, b := f.raw(t, "DELETE", pods+"/term", "", "", ""); code != http.StatusOK {
		t.Fatalf("DELETE term = %d %s", code, b)
	}
}

// optionalKinds checks the kinds served by the real server that a fake
// may not serve yet: ResourceQuotas (printed with their quantities in
// canonical form) and LimitRanges (the default columns).
func (f *fixture) optionalKinds(t *testing.T) {
	ns := "/api/v1/namespaces/" + f.ns
	if code, _ := f.raw(t, "GET", ns+"/resourcequotas", "", "", ""); code == http.StatusNotFound {
		t.Logf("resourcequotas are not served: their Table is not checked")
		return
	}
	f.post(t, ns+"/resourcequotas", `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"10"}}}`)
	f.patch(t, ns+"/resourcequotas/q/status", `{"status":{"hard":{"pods":"10","requests.cpu":"1500m","requests.memory":"1024Mi","limits.cpu":"2000m","limits.memory":"2.5Gi","count/configmaps":"12000","cpu":"0.1","memory":"1000Ki"},"used":{"pods":"3","requests.cpu":"0.5","limits.memory":"1536Mi","memory":"2048"}}}`)
	f.post(t, ns+"/limitranges", `{"metadata":{"name":"lr"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}}`)
	f.checkTables(t, []tableCase{
		{"resourcequotas", "Name:string:name:0,Request:string::0,Limit:string::0,Age:string::0", "174a88f68bcf",
			[]string{`["q","count/configmaps: 0/12k, cpu: 0/100m, memory: 2048/1000Ki, pods: 3/10, requests.cpu: 500m/1500m, requests.memory: 0/1Gi","limits.cpu: 0/2, limits.memory: 1536Mi/2560Mi","<age>"]`}},
		{"limitranges", "Name:string:name:0,Created At:date::0", "bc025c20d637", []string{`["lr","<time>"]`}},
	})
}
