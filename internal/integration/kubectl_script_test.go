// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

// This file is the script of TestKubectl: the objects it starts from, the
// manifests it applies, and the commands, each with whether kubetest's
// output agrees with kube-apiserver's today.
//
// In the commands, {ns} is the script's namespace (also the kubeconfig's),
// {group} the API group of its CRD and {dir} the directory holding the
// manifests; a 'quoted' part is one argument. KUBE_EDITOR is editor.sh.

// kubectlStep is one command of the script.
type kubectlStep struct {
	args  string // after "kubectl"
	stdin string
	// differs names the DIFFERENCES.md entry (its bold title) that says
	// why kubetest's output differs; empty when the outputs agree.
	differs string
	// why says in one line what differs in this command's output and
	// why; set exactly when differs is.
	why string
	// controllers says the command waits for a garbage collector or a
	// namespace controller; it is left out when the harness runs no
	// kube-controller-manager (KUBELOOP_CONTROLLERS empty).
	controllers bool
	// sinceMinor, when set, leaves the command out on servers (and their
	// kubectl) older than 1.sinceMinor: that kubectl's output is not the
	// same from one run to the next.
	sinceMinor int
}

func (s kubectlStep) reason() string {
	if s.differs == "" {
		return "not expected"
	}
	return s.differs
}

// The reasons a command's output differs are bold titles of entries in
// kube/kubetest/DIFFERENCES.md, declared here as constants when a command
// needs one (none does now: every command agrees).

// kubectlFixtures are the objects the script starts from, as JSON, created
// in order through kube.Client.
func kubectlFixtures() []string {
	return []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"{ns}","labels":{"app":"demo"}},
		  "data":{"color":"blue","size":"3"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"editme","namespace":"{ns}"},"data":{"color":"blue"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"page-1","namespace":"{ns}","labels":{"app":"pages"}}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"page-2","namespace":"{ns}","labels":{"app":"pages"}}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"page-3","namespace":"{ns}","labels":{"app":"pages"}}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","namespace":"{ns}","finalizers":["kubeloop.dev/hold"]}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"doomed","namespace":"{ns}"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fg","namespace":"{ns}"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"orph","namespace":"{ns}"}}`,
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}-empty"}}`,
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}-held"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","namespace":"{ns}-held","finalizers":["kubeloop.dev/hold"]}}`,
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"fixture-secret","namespace":"{ns}"},"type":"Opaque",
		  "data":{"password":"aHVudGVyMg=="}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"{ns}","labels":{"app":"web"}},
		  "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
		  "spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"patched","namespace":"{ns}"},
		  "spec":{"replicas":1,"selector":{"matchLabels":{"app":"patched"}},"template":{"metadata":{"labels":{"app":"patched"}},
		  "spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.{group}"},
		  "spec":{"group":"{group}","scope":"Namespaced",
		  "names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList","shortNames":["gz"]},
		  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
		  "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"},
		    {"name":"Color","type":"string","jsonPath":".spec.color"},
		    {"name":"Note","type":"string","jsonPath":".spec.note","priority":1},
		    {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}],
		  "schema":{"openAPIV3Schema":{"type":"object","properties":{
		    "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":0},"color":{"type":"string"},"note":{"type":"string"}}},
		    "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`,
		`{"apiVersion":"{group}/v1","kind":"Gizmo","metadata":{"name":"g1","namespace":"{ns}"},"spec":{"size":3,"color":"red","note":"first"}}`,
		`{"apiVersion":"v1","kind":"Event","metadata":{"name":"settings.ev1","namespace":"{ns}"},
		  "involvedObject":{"apiVersion":"v1","kind":"ConfigMap","name":"settings","namespace":"{ns}"},
		  "reason":"Configured","message":"settings configured","type":"Normal","count":1,
		  "source":{"component":"kubectl-test"},"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z"}`,
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"quota","namespace":"{ns}"},"spec":{"hard":{"count/jobs.batch":"5"}}}`,
		`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"limits","namespace":"{ns}"},
		  "spec":{"limits":[{"type":"Container","default":{"cpu":"500m"}}]}}`,
		`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs","namespace":"{ns}"},
		  "spec":{"selector":{"matchLabels":{"app":"rs"}},"template":{"metadata":{"labels":{"app":"rs"}},
		  "spec":{"containers":[{"name":"app","image":"nginx:1.27"},{"name":"side","image":"busybox"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"sts","namespace":"{ns}"},
		  "spec":{"serviceName":"sts","selector":{"matchLabels":{"app":"sts"}},"template":{"metadata":{"labels":{"app":"sts"}},
		  "spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"{ns}"},
		  "spec":{"selector":{"matchLabels":{"app":"ds"}},"template":{"metadata":{"labels":{"app":"ds"}},
		  "spec":{"nodeSelector":{"zone":"a","disk":"ssd"},"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
		`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj","namespace":"{ns}"},
		  "spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",
		  "containers":[{"name":"app","image":"busybox"}]}}}}}}`,
		`{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc","namespace":"{ns}"},
		  "spec":{"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"rev","namespace":"{ns}"},"revision":3,"data":{"a":1}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"ing","namespace":"{ns}"},
		  "spec":{"tls":[{"hosts":["a.example"]}],"rules":[{"host":"a.example","http":{"paths":[{"path":"/","pathType":"Prefix",
		  "backend":{"service":{"name":"web","port":{"number":80}}}}]}},{"http":{"paths":[{"path":"/b","pathType":"Exact",
		  "backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`,
		`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"claim","namespace":"{ns}"},
		  "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"fast","resources":{"requests":{"storage":"1Gi"}}}}`,
		`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"ep","namespace":"{ns}"},
		  "subsets":[{"addresses":[{"ip":"10.1.2.3"},{"ip":"10.1.2.4"}],"ports":[{"name":"http","port":80},{"name":"https","port":443}]}]}`,
		`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"{ns}-pv"},
		  "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadOnlyMany","ReadWriteOnce"],"hostPath":{"path":"/tmp/pv"},
		  "claimRef":{"namespace":"{ns}","name":"claim"}}}`,
		// In {ns}-held: {ns}'s quota on jobs has no status (no quota
		// controller), so the real server refuses Jobs there.
		`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"job","namespace":"{ns}-held"},
		  "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"busybox"}]}}}}`,
	}
}

// kubectlFiles are the files the script reads, by name in {dir}.
func kubectlFiles() map[string]string {
	return map[string]string{
		"editor.sh": "#!/bin/sh\nsed -i 's/color: blue/color: green/' \"$1\"\n",
		"tls-nokey.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: tls-nokey
type: kubernetes.io/tls
data:
  tls.crt: ""
`,
		"applied-v1.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {app: applied}
data:
  color: blue
`,
		"applied-v2.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {app: applied}
  annotations: {note: v2}
data:
  color: green
  size: "4"
`,
		"applied-v3.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {app: applied}
data:
  color: red
`,
		// A List, as kubectl get -o json writes one: kubectl validates it
		// with /openapi/v2 in protobuf.
		"list.json": `{"apiVersion":"v1","kind":"List","items":[
  {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"listed-1"},"data":{"a":"1"}},
  {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"listed-2"},"data":{"b":"2"}}]}
`,
		"created.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: created
data:
  from: file
`,
		"web-v1.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-applied
spec:
  replicas: 1
  selector:
    matchLabels: {app: web-applied}
  template:
    metadata:
      labels: {app: web-applied}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports:
        - containerPort: 80
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
`,
		"prune-v1.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: pruned-keep, labels: {set: pruned}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: pruned-drop, labels: {set: pruned}}
`,
		"prune-v2.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: pruned-keep, labels: {set: pruned}}
`,
		"web-v2.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-applied
spec:
  replicas: 2
  selector:
    matchLabels: {app: web-applied}
  template:
    metadata:
      labels: {app: web-applied}
    spec:
      containers:
      - name: app
        image: nginx:1.28
        ports:
        - containerPort: 80
        env:
        - {name: A, value: "1"}
        - {name: B, value: "3"}
`,
		"ssa.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  a: "1"
  b: "1"
`,
		"ssa-other.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  a: "2"
`,
		"settings-replace.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: demo}
data:
  color: purple
`,
		"gizmo2.yaml": `apiVersion: {group}/v1
kind: Gizmo
metadata:
  name: g2
spec:
  size: 5
  color: blue
`,
	}
}

// kubectlScript is the script, in order: later commands see what earlier
// ones did. Objects a command makes are deleted soon after, so that a
// command that fails on one server does not change the lists of the
// commands after it.
func kubectlScript() []kubectlStep {
	return []kubectlStep{
		// What the server is.
		{args: "version"},
		{args: "api-versions"},
		{args: "api-resources"},
		{args: "api-resources --api-group=coordination.k8s.io"},
		{args: "api-resources --api-group={group} -o wide"},
		{args: "api-resources --namespaced=false -o name"},
		{args: "api-resources --api-group= -o wide"},
		{args: "get --raw /api/v1"},
		{args: "get --raw /apis/apps/v1"},
		{args: "get --raw /apis/certificates.k8s.io/v1"},
		{args: "explain configmap.data"},
		{args: "explain gizmos --api-version={group}/v1"},
		{args: "explain --output=plaintext-openapiv2 deployments.spec.template"},
		{args: "explain --output=plaintext-openapiv2 gizmos.spec --api-version={group}/v1"},
		{args: "auth can-i create configmaps"},
		{args: "auth whoami"},
		{args: "auth whoami -o jsonpath={.status.userInfo.username}{.status.userInfo.groups}"},
		{args: "auth can-i --list"},
		{args: "auth can-i --list -n {ns}"},
		{args: "cluster-info"},

		// Objects made by kubectl's generators and from files.
		{args: "create configmap app-config --from-literal=color=blue --from-literal=size=3"},
		{args: "get configmap app-config -o jsonpath={.data}"},
		{args: "delete configmap app-config"},
		{args: "create secret generic app-secret --from-literal=password=hunter2"},
		{args: "get secret app-secret -o jsonpath={.type}"},
		{args: "delete secret app-secret"},
		{args: "create -f {dir}/tls-nokey.yaml"},
		{args: "create secret generic bad-key --from-literal=..x=1"},
		{args: "create configmap bad-key --from-literal=a/b=1"},
		{args: "create configmap dry-client --from-literal=a=1 --dry-run=client -o yaml"},
		{args: "create configmap dry-server --from-literal=a=1 --dry-run=server -o yaml"},
		{args: "get configmap dry-server"},
		{args: "create deployment gen --image=nginx:1.27 --dry-run=client -o yaml"},
		{args: "run pod1 --image=nginx:1.27 --restart=Never --dry-run=client -o yaml"},
		{args: "create -f {dir}/created.yaml"},
		{args: "get configmap created -o jsonpath={.data}"},
		{args: "delete -f {dir}/created.yaml"},
		{args: "create -f {dir}/list.json"},
		{args: "get configmaps listed-1 listed-2 -o name"},
		{args: "delete -f {dir}/list.json"},

		// Reading.
		{args: "get configmaps"},
		{args: "get configmap settings -o yaml"},
		{args: "get configmap settings -o json"},
		{args: "get configmap settings -o jsonpath={.data.color}"},
		{args: "get configmaps -o custom-columns=NAME:.metadata.name,COLOR:.data.color"},
		{args: "get configmaps --show-labels"},
		{args: "get configmaps -l app=pages"},
		{args: "get configmaps -l 'app in (pages,demo)' -o name"},
		{args: "get configmaps --field-selector metadata.name=settings -o name"},
		{args: "get configmaps --chunk-size=1 -o name"},
		{args: "get configmaps -o wide"},
		{args: "get deployments"},
		{args: "get deployment web -o jsonpath={.spec.template.spec.containers[0].image}"},
		{args: "get all"},
		{args: "get replicasets,statefulsets,daemonsets,cronjobs -o wide"},
		{args: "get jobs -n {ns}-held -o wide"},
		{args: "get replicationcontrollers,controllerrevisions,ingresses,persistentvolumeclaims -o wide"},
		{args: "get endpoints ep"},
		{args: "get persistentvolume {ns}-pv -o wide"},
		{args: "get job job -n {ns}-held -o yaml"},
		{args: "get namespace {ns} -o jsonpath={.status.phase}"},
		{args: "get events -o custom-columns=REASON:.reason,OBJECT:.involvedObject.name"},
		{args: "get events --field-selector source=kubectl-test -o name"},
		{args: "get events.events.k8s.io -o custom-columns=NOTE:.note,REGARDING:.regarding.name,COUNT:.deprecatedCount"},
		{args: "get events.v1.events.k8s.io --field-selector regarding.name=settings -o yaml"},
		{args: "get event settings.ev1 -o yaml"},
		{args: "get secrets -o name"},
		{args: "get configmap nosuch"},
		{args: "get gizmos.{group}"},
		{args: "get gizmos.{group} -o wide"},
		{args: "get gizmos.{group} g1 -o yaml"},
		{args: "get crd gizmos.{group} -o jsonpath={.status.conditions[?(@.type==\"Established\")].status}"},
		{args: "get configmaps -l app=pages -w --request-timeout=2s -o name"},
		{args: "get configmaps -l app=pages -w --output-watch-events --request-timeout=2s"},

		// Describing.
		// kubectl 1.33 prints a ConfigMap's keys in map order: 5 runs of 6 one
		// way, 1 the other, on 1.33.13 alone.
		{args: "describe configmap settings", sinceMinor: 34},
		{args: "describe secret fixture-secret"},
		{args: "describe namespace {ns}"},
		{args: "describe deployment web"},
		{args: "describe gizmos.{group} g1"},
		{args: "describe quota quota"},

		// Client-side apply, twice with changes, and diff.
		{args: "apply -f {dir}/applied-v1.yaml"},
		{args: "apply -f {dir}/applied-v1.yaml"},
		{args: "apply -f {dir}/applied-v2.yaml"},
		{args: "get configmap applied -o yaml"},
		{args: "apply view-last-applied configmap applied"},
		{args: "diff -f {dir}/applied-v2.yaml"},
		{args: "diff -f {dir}/applied-v3.yaml"},
		{args: "delete -f {dir}/applied-v2.yaml"},
		{args: "apply -f {dir}/web-v1.yaml"},
		{args: "apply -f {dir}/web-v2.yaml"},
		{args: "get deployment web-applied -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env} {.spec.template.spec.containers[0].ports}'"},
		{args: "get deployment web-applied -o jsonpath={.spec.strategy}"},
		{args: "delete -f {dir}/web-v2.yaml"},
		{args: "apply -f {dir}/prune-v1.yaml"},
		{args: "apply --prune -l set=pruned -f {dir}/prune-v2.yaml"},
		{args: "get configmaps -l set=pruned -o name"},

		// Server-side apply with a conflict.
		{args: "apply --server-side -f {dir}/ssa.yaml"},
		{args: "apply --server-side -f {dir}/ssa-other.yaml --field-manager=other"},
		{args: "apply --server-side -f {dir}/ssa-other.yaml --field-manager=other --force-conflicts"},
		{args: "get configmap ssa -o yaml --show-managed-fields"},
		{args: "delete configmap ssa"},

		// Edit through KUBE_EDITOR (editor.sh turns blue into green).
		{args: "edit configmap editme"},
		{args: "get configmap editme -o jsonpath={.data.color}"},

		// Patches of each type.
		{args: `patch configmap settings --type=merge -p {"data":{"size":"4"}}`},
		{args: `patch configmap settings --type=json -p [{"op":"add","path":"/data/shape","value":"round"}]`},
		{args: `patch deployment patched --type=strategic -p {"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`},
		{args: "get deployment patched -o jsonpath={.spec.template.spec.containers[*].name}"},
		{args: `patch gizmos.{group} g1 --type=merge -p {"spec":{"size":4}}`},
		{args: `patch gizmos.{group} g1 --type=strategic -p {"spec":{"size":5}}`},
		{args: `patch configmap settings -p {"data":{"x":"1"}} --dry-run=server -o jsonpath={.data}`},

		// Labels and annotations.
		{args: "label configmap settings tier=backend"},
		{args: "label configmap settings tier=frontend"},
		{args: "label configmap settings tier=frontend --overwrite"},
		{args: "label configmap settings tier-"},
		{args: "annotate configmap settings note=hello"},
		{args: "get configmap settings -o jsonpath='{.metadata.labels} {.metadata.annotations}'"},

		// Replace.
		{args: "replace -f {dir}/settings-replace.yaml"},
		{args: "get configmap settings -o jsonpath={.data}"},

		// Custom resources.
		{args: "get gizmos.{group} -o custom-columns=NAME:.metadata.name,SIZE:.spec.size"},
		{args: "create -f {dir}/gizmo2.yaml"},
		{args: "get gizmos.{group} g2 -o jsonpath={.spec}"},
		{args: "delete -f {dir}/gizmo2.yaml"},

		// Waiting.
		{args: "wait --for=jsonpath={.data.color}=green configmap/editme --timeout=2s"},
		{args: "wait --for=condition=Established crd/gizmos.{group} --timeout=10s"},
		{args: "delete configmap doomed --wait=false"},
		{args: "wait --for=delete configmap/doomed --timeout=10s"},

		// Events.
		{args: "events"},
		{args: "events --for configmap/settings"},

		// Deleting.
		{args: "delete configmap -l app=pages"},
		{args: "delete configmap nosuch"},
		{args: "delete configmap held --wait=false"},
		{args: "get configmap held -o jsonpath={.metadata.deletionTimestamp}"},
		{args: "delete configmap settings --dry-run=server"},
		{args: "get configmap settings -o name"},

		// Deployments without controllers.
		{args: "rollout history deployment/web"},
		{args: "rollout pause deployment/web"},
		{args: "rollout resume deployment/web"},
		{args: "scale deployment web --replicas=2"},
		{args: "get deployment web -o jsonpath={.spec.replicas}"},
		{args: "scale deployment web --replicas=3 --current-replicas=7"},
		{args: "scale deployment/web --replicas=1 --current-replicas=2 -o name"},
		{args: "set image deployment/web app=nginx:1.28"},
		{args: "get deployment web -o jsonpath={.spec.template.spec.containers[0].image}"},
		{args: "expose deployment web --port=80 --dry-run=server -o jsonpath={.spec.clusterIP}"},
		{args: "scale rc rc --replicas=2"},
		{args: "get rc rc -o jsonpath={.spec.replicas}"},
		{args: "scale rc rc --replicas=3 --current-replicas=7"},
		{args: "scale replicationcontroller/rc --replicas=0 --current-replicas=2 -o name"},

		// Pods without nodes.
		{args: "run logme --image=nginx:1.27 --restart=Never"},
		{args: "logs logme"},
		{args: "logs logme -c nosuch"},
		{args: "logs pod/logme --tail=5 --timestamps"},
		{args: "delete pod logme --wait=false"},
		{args: "run debugme --image=nginx:1.27 --restart=Never"},
		{args: "debug debugme --image=busybox:1.36 -c debugger --attach=false"},
		{args: "debug debugme --image=busybox:1.36 -c debugger --attach=false"},
		{args: "debug debugme --image=busybox:1.36 -c targeted --target=debugme --attach=false --profile=general"},
		{args: "debug debugme --image=busybox:1.36 -c bad --target=nosuch --attach=false"},
		{args: "get pod debugme -o jsonpath={.spec.ephemeralContainers}"},
		{args: "exec debugme -- ls"},
		{args: "exec debugme -c debugger -- ls"},
		{args: "attach debugme -c nosuch"},
		{args: "port-forward pod/debugme 8080:80"},
		{args: "delete pod debugme --wait=false"},

		// Garbage collection and namespace deletion: kubectl waits for
		// what the controllers do (kube-controller-manager's on the real
		// server, kubetest's own).
		{args: "delete configmap fg --cascade=foreground", controllers: true},
		{args: "delete configmap orph --cascade=orphan", controllers: true},
		{args: "get configmap fg orph --ignore-not-found -o name", controllers: true},
		{args: "delete namespace {ns}-empty", controllers: true},
		{args: "get namespace {ns}-empty --ignore-not-found -o name", controllers: true},
		{args: "delete namespace {ns}-held --wait=false", controllers: true},
		{args: "get namespace {ns}-held -o jsonpath={.status.phase}", controllers: true},
		{args: "create configmap late -n {ns}-held", controllers: true},
		{args: "patch configmap held -n {ns}-held --type=merge -p '{\"metadata\":{\"finalizers\":null}}'", controllers: true},
	}
}
