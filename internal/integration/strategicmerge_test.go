// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestStrategicMergeAgreesWithKubeAPIServer sends the same random
// strategic merge patches of a Deployment (containers, env, ports,
// volumes, strategy, labels, finalizers, with every directive, valid or
// not) to kube-apiserver and to kubetest, each time to the same fresh
// object, and compares the answers: code, reason and message of
// failures; the object and the Warning headers of successes. The object
// starts as the real server stored it (its defaults included) and the
// patches spell out what the real server would default, so that the
// merge alone is compared.
func TestStrategicMergeAgreesWithKubeAPIServer(t *testing.T) {
	h := harnessFromEnv(t)
	fake := kubetest.New(kubetest.Options{})
	defer fake.Close()
	ns := "smp-" + randomName()
	real := &smpTarget{name: "kube-apiserver", base: h.Server, token: h.Token, c: h.httpClient(t)}
	kt := &smpTarget{name: "kubetest", base: "http://kubetest.invalid", c: &http.Client{Transport: fake.Transport()}}
	for _, s := range []*smpTarget{real, kt} {
		if code, body, _ := s.do(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); code != 201 {
			t.Fatalf("%s: create namespace = %d %s", s.name, code, body)
		}
	}
	deploys := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	code, stored, _ := real.do(t, "POST", deploys, "application/json", smpBaseDeployment)
	if code != 201 {
		t.Fatalf("create Deployment on kube-apiserver = %d %s", code, stored)
	}
	base := smpNormalize(t, stored)

	rnd := rand.New(rand.NewPCG(16, 4))
	const rounds = 300
	agree := 0
	for i := range rounds {
		name := fmt.Sprintf("d%d", i)
		obj := strings.Replace(base, `"name":"web"`, `"name":"`+name+`"`, 1)
		patch := smpRandomPatch(rnd)
		send := func(s *smpTarget) smpAnswer {
			if code, body, _ := s.do(t, "POST", deploys, "application/json", obj); code != 201 {
				t.Fatalf("%s: create %s = %d %s", s.name, name, code, body)
			}
			code, body, warnings := s.do(t, "PATCH", deploys+"/"+name, "application/strategic-merge-patch+json", patch)
			s.do(t, "PATCH", deploys+"/"+name, "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
			s.do(t, "DELETE", deploys+"/"+name, "", "")
			return smpAnswerOf(t, code, body, warnings)
		}
		want, got := send(real), send(kt)
		// The real server merges a patch's keys in random (map) order: of
		// two errors in one patch, either is reported. Ask it again.
		for try := 0; try < 8 && want.Code >= 400 && got.Code >= 400 && !reflect.DeepEqual(want, got); try++ {
			want = send(real)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("patch %s:\nkube-apiserver: %+v\nkubetest:       %+v", patch, want, got)
			continue
		}
		agree++
	}
	t.Logf("%d of %d random strategic merge patches answered alike", agree, rounds)
}

// smpBaseDeployment is the object every round patches.
const smpBaseDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"1","b":"2"},
"finalizers":["example.com/a","example.com/b"]},"spec":{"selector":{"matchLabels":{"app":"web"}},
"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},
"template":{"metadata":{"labels":{"app":"web"}},"spec":{
"containers":[
 {"name":"c1","image":"nginx:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}]},
 {"name":"c2","image":"busybox:1","env":[{"name":"C","value":"3"}]},
 {"name":"c3","image":"x:1"}],
"volumes":[{"name":"v1","emptyDir":{}},{"name":"v2","emptyDir":{}}],
"tolerations":[{"key":"k","operator":"Exists"}]}}}}`

type smpTarget struct {
	name, base, token string
	c                 *http.Client
}

func (s *smpTarget) do(t *testing.T, method, path, contentType, body string) (int, []byte, []string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.c.Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", s.name, method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %s %s: read: %v", s.name, method, path, err)
	}
	return resp.StatusCode, out, resp.Header.Values("Warning")
}

// smpAnswer is what is compared of an answer.
type smpAnswer struct {
	Code     int
	Reason   string
	Message  string
	Object   string
	Warnings []string
}

func smpAnswerOf(t *testing.T, code int, body []byte, warnings []string) smpAnswer {
	a := smpAnswer{Code: code, Warnings: slices.Sorted(slices.Values(warnings))}
	if code != 200 {
		var st struct{ Reason, Message string }
		_ = json.Unmarshal(body, &st)
		a.Reason, a.Message = st.Reason, st.Message
		return a
	}
	a.Object = smpNormalize(t, body)
	return a
}

// smpNormalize is an object without what differs between servers
// (uid, versions, times, managedFields, status), as sorted JSON. The pod
// template's "creationTimestamp": null, which 1.33 writes and 1.36 and
// 1.37 omit, goes too: it is the version's encoding, not the merge.
func smpNormalize(t *testing.T, raw []byte) string {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	m, _ := o["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "namespace"} {
		delete(m, k)
	}
	spec, _ := o["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if tm, _ := template["metadata"].(map[string]any); tm != nil {
		if v, ok := tm["creationTimestamp"]; ok && v == nil {
			delete(tm, "creationTimestamp")
		}
	}
	delete(o, "status")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(o)
	return strings.TrimSpace(b.String())
}

// smpRandomPatch builds a strategic merge patch of smpBaseDeployment.
func smpRandomPatch(r *rand.Rand) string {
	p := map[string]any{}
	spec := map[string]any{}
	chance := func(n int) bool { return r.IntN(100) < n }
	if chance(60) {
		containers, order := smpContainers(r)
		spec["containers"] = containers
		if order != nil {
			spec["$setElementOrder/containers"] = order
		}
	}
	if chance(20) {
		tol := map[string]any{"key": "t" + fmt.Sprint(r.IntN(3)), "operator": "Exists"}
		if chance(30) {
			tol["$patch"] = "delete" // an atomic list keeps it: an unknown field
		}
		spec["tolerations"] = []any{tol}
	}
	if chance(25) {
		v := map[string]any{"name": fmt.Sprintf("v%d", 1+r.IntN(3))}
		switch r.IntN(4) {
		case 0:
			v["$retainKeys"] = []any{"name", "configMap"}
			v["configMap"] = map[string]any{"name": "cfg", "defaultMode": 420}
		case 1:
			v["$patch"] = "delete"
		case 2:
			v["emptyDir"] = map[string]any{"medium": "Memory"}
		default:
			v["$retainKeys"] = []any{"name"}
			v["emptyDir"] = map[string]any{}
		}
		spec["volumes"] = []any{v}
		if chance(30) {
			spec["$setElementOrder/volumes"] = []any{map[string]any{"name": "v2"}, map[string]any{"name": v["name"]}, map[string]any{"name": "v1"}}
		}
	}
	if len(spec) > 0 {
		p["spec"] = map[string]any{"template": map[string]any{"spec": spec}}
	}
	if chance(20) {
		s := map[string]any{}
		switch r.IntN(4) {
		case 0:
			s["$retainKeys"], s["type"] = []any{"type"}, "Recreate"
		case 1:
			s["$retainKeys"], s["type"] = []any{"rollingUpdate"}, "Recreate"
		case 2:
			// delete empties the strategy, which both servers default.
			s["$patch"] = []string{"replace", "merge", "delete", "zap"}[r.IntN(4)]
			s["type"], s["rollingUpdate"] = "RollingUpdate", map[string]any{"maxSurge": 2, "maxUnavailable": 0}
		default:
			s["rollingUpdate"] = map[string]any{"maxSurge": 3}
		}
		if p["spec"] == nil {
			p["spec"] = map[string]any{}
		}
		p["spec"].(map[string]any)["strategy"] = s
	}
	meta := map[string]any{}
	if chance(30) {
		labels := map[string]any{}
		for _, k := range []string{"a", "b", "c"} {
			switch r.IntN(4) {
			case 0:
				labels[k] = nil
			case 1:
				labels[k] = "x"
			}
		}
		if chance(20) {
			labels["$patch"] = "replace"
		}
		if chance(10) {
			labels["$retainKeys"] = []any{"b", "c"}
		}
		meta["labels"] = labels
	}
	if chance(30) {
		pool := []any{"example.com/a", "example.com/b", "example.com/c", "example.com/d"}
		pick := func() []any {
			out := []any{}
			for _, v := range pool {
				if chance(40) {
					out = append(out, v)
				}
			}
			r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return out
		}
		added := pick()
		if chance(60) {
			meta["finalizers"] = added
		}
		if chance(30) {
			// Values both added and deleted come out at random on the
			// real server, which merges a patch's keys in map order.
			del := []any{}
			for _, v := range pick() {
				if !slices.Contains(added, v) {
					del = append(del, v)
				}
			}
			meta["$deleteFromPrimitiveList/finalizers"] = del
		}
		if chance(30) {
			meta["$setElementOrder/finalizers"] = pick()
		}
	}
	if len(meta) > 0 {
		p["metadata"] = meta
	}
	raw, _ := json.Marshal(p)
	return string(raw)
}

// smpContainers builds a patch of the containers and, sometimes, the
// $setElementOrder that goes with it (nil when none).
func smpContainers(r *rand.Rand) (items, order []any) {
	chance := func(n int) bool { return r.IntN(100) < n }
	names := []string{"c1", "c2", "c3", "n1", "n2"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	live := map[string]bool{"c1": true, "c2": true, "c3": true}
	var kept []string
	for _, n := range names[:1+r.IntN(3)] {
		c := map[string]any{"name": n}
		switch {
		case !live[n]: // a new container, with what the real server defaults
			c["image"], c["imagePullPolicy"] = "img:1", "IfNotPresent"
			c["terminationMessagePath"], c["terminationMessagePolicy"], c["resources"] = "/dev/termination-log", "File", map[string]any{}
			if chance(30) {
				c["env"] = []any{map[string]any{"name": "N", "value": "1"}, map[string]any{"name": "M", "$patch": "delete"}}
			}
			kept = append(kept, n)
		case n != "c1" && chance(25):
			c["$patch"] = "delete"
			delete(live, n)
		default:
			if chance(50) {
				c["image"] = fmt.Sprintf("img:%d", 2+r.IntN(3))
			}
			if chance(50) {
				c["env"] = smpEnv(r)
				if chance(30) {
					c["$setElementOrder/env"] = []any{map[string]any{"name": "B"}, map[string]any{"name": "A"}}
				}
			}
			if chance(15) {
				c["resources"] = []map[string]any{
					{"$patch": "replace", "limits": map[string]any{"cpu": "1"}},
					{"$patch": "delete"},
					{"requests": map[string]any{"memory": "1Gi"}, "$retainKeys": []any{"requests"}},
				}[r.IntN(3)]
			}
			if n == "c1" && chance(50) { // one container has ports: the real server warns of duplicates
				port := map[string]any{"containerPort": 80 + r.IntN(2), "protocol": "TCP"}
				if chance(40) {
					port["$patch"] = "delete"
				}
				c["ports"] = []any{port}
			}
			kept = append(kept, n)
		}
		items = append(items, c)
	}
	allNew := true
	for _, c := range items {
		allNew = allNew && c.(map[string]any)["image"] == "img:1"
	}
	switch {
	case chance(5):
		items = append(items, map[string]any{"image": "no-name"})
	case chance(10) && allNew:
		// A list of whole containers: the real server validates them.
		items = append(items, map[string]any{"$patch": "replace"})
	case chance(5):
		items = append(items, map[string]any{"$patch": []string{"merge", "zap"}[r.IntN(2)]})
	}
	if chance(50) {
		for _, n := range []string{"c1", "c2", "c3"} {
			if live[n] && !slices.Contains(kept, n) {
				kept = append(kept, n)
			}
		}
		if chance(50) {
			r.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		}
		if chance(20) && len(kept) > 1 {
			kept = kept[1:]
		}
		for _, n := range kept {
			order = append(order, map[string]any{"name": n})
		}
		if order == nil {
			order = []any{}
		}
	}
	return items, order
}

// smpEnv builds a patch of an env list.
func smpEnv(r *rand.Rand) []any {
	var env []any
	for _, n := range []string{"A", "B", "C", "D"} {
		switch r.IntN(5) {
		case 0:
			env = append(env, map[string]any{"name": n, "value": fmt.Sprint(r.IntN(9))})
		case 1:
			env = append(env, map[string]any{"name": n, "$patch": "delete"})
		case 2:
			env = append(env, map[string]any{"name": n, "value": nil})
		}
	}
	r.Shuffle(len(env), func(i, j int) { env[i], env[j] = env[j], env[i] })
	return env
}
