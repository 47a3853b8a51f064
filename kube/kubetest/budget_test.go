// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// budgetFixture drives pods and PodDisruptionBudgets of the default
// namespace through the wire.
type budgetFixture struct {
	t *testing.T
	c *client
}

const (
	budgetPods    = "/api/v1/namespaces/default/pods"
	budgetBudgets = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	mergePatch    = "application/merge-patch+json"
)

// pod creates a pod labelled app=x in phase (Pending: left as created),
// ready or not, with finalizers.
func (f budgetFixture) pod(name, phase string, ready bool, finalizers ...string) {
	f.t.Helper()
	fins, _ := json.Marshal(finalizers)
	f.c.mustDo(201, "POST", budgetPods, fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"app":"x"},"finalizers":%s},`+
		`"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, name, fins))
	if phase == "Pending" {
		return
	}
	st := fmt.Sprintf(`{"status":{"phase":%q,"conditions":[{"type":"Ready","status":"%t"}]}}`, phase, ready)
	st = strings.Replace(st, `"true"`, `"True"`, 1)
	st = strings.Replace(st, `"false"`, `"False"`, 1)
	f.c.mustDo(200, "PATCH", budgetPods+"/"+name+"/status", st, "Content-Type", mergePatch)
}

// budget creates a budget with the given spec.
func (f budgetFixture) budget(name, spec string) {
	f.t.Helper()
	f.c.mustDo(201, "POST", budgetBudgets, `{"metadata":{"name":"`+name+`"},"spec":`+spec+`}`)
}

// status merge-patches a budget's status and returns the budget.
func (f budgetFixture) status(name, status string) map[string]any {
	f.t.Helper()
	return f.c.mustDo(200, "PATCH", budgetBudgets+"/"+name+"/status", `{"status":`+status+`}`, "Content-Type", mergePatch)
}

func (f budgetFixture) get(name string) map[string]any {
	f.t.Helper()
	return f.c.mustDo(200, "GET", budgetBudgets+"/"+name, "")
}

func (f budgetFixture) evict(name, query, deleteOptions string) response {
	f.t.Helper()
	body := `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `"}`
	if deleteOptions != "" {
		body += `,"deleteOptions":` + deleteOptions
	}
	return f.c.do("POST", budgetPods+"/"+name+"/eviction"+query, body+"}")
}

// expect checks an eviction's answer: its code, Retry-After header and
// whole body.
func (f budgetFixture) expect(what string, r response, code int, retryAfter, body string) {
	f.t.Helper()
	if r.code != code || r.header.Get("Retry-After") != retryAfter || string(r.body) != body {
		f.t.Errorf("%s = %d (Retry-After %q) %s, want %d (Retry-After %q) %s", what, r.code, r.header.Get("Retry-After"),
			r.body, code, retryAfter, body)
	}
}

const (
	evicted     = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`
	budgetBusyB = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",` +
		`"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget b is still being processed by the server."}],` +
		`"retryAfterSeconds":10},"code":429}`
)

// budgetExhausted is the body of the 429 of a budget that allows no
// disruption, with cause msg.
func budgetExhausted(msg string) string {
	return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",` +
		`"details":{"causes":[{"reason":"DisruptionBudget","message":"` + msg + `"}]},"code":429}`
}

// An eviction of a pod a PodDisruptionBudget covers answers as
// kube-apiserver 1.36.3 does (every answer captured through the harness
// with the same requests): a budget never processed answers 429 with
// Retry-After 10; one that allows no disruption 429 without, its cause
// chosen from its status; one that allows it is charged, a status write
// by kube-apiserver; pods that are Pending, unready under a healthy
// budget or being deleted pass uncharged.
func TestEvictionBudget(t *testing.T) {
	_, c := newTestServer(t, Options{})
	f := budgetFixture{t, c}
	f.budget("b", `{"minAvailable":1,"selector":{"matchLabels":{"app":"x"}}}`)
	f.budget("nothing", `{"maxUnavailable":1}`) // no selector: covers no pod

	f.pod("pending", "Pending", false)
	f.expect("evict a Pending pod", f.evict("pending", "", ""), 201, "", evicted)
	f.pod("r1", "Running", true)
	f.expect("evict under a budget never processed", f.evict("r1", "", ""), 429, "10", budgetBusyB)
	f.expect("dry-run evict under a budget never processed", f.evict("r1", "?dryRun=All", ""), 429, "10", budgetBusyB)

	f.status("b", `{"observedGeneration":1}`)
	f.expect("evict under a budget of 0 disruptions", f.evict("r1", "", ""), 429, "",
		budgetExhausted("The disruption budget b needs 0 healthy pods and has 0 currently"))
	for _, tc := range []struct{ status, cause string }{
		{`{"currentHealthy":0,"desiredHealthy":1,"conditions":[{"type":"DisruptionAllowed","status":"False","reason":"SyncFailed","message":"boom","lastTransitionTime":"2026-11-27T13:00:00Z"}]}`,
			"The disruption budget b does not allow evicting pods currently because it failed sync: boom"},
		{`{"currentHealthy":3,"conditions":[{"type":"DisruptionAllowed","status":"False","reason":"Other","message":"why","lastTransitionTime":"2026-11-27T13:00:00Z"}]}`,
			"The disruption budget b does not allow evicting pods currently (Other): why"},
		{`{"conditions":[{"type":"DisruptionAllowed","status":"False","reason":"Other","message":"","lastTransitionTime":"2026-11-27T13:00:00Z"}]}`,
			"The disruption budget b does not allow evicting pods currently"},
		{`{"conditions":null}`, "The disruption budget b does not allow evicting pods currently"},
	} {
		f.status("b", tc.status)
		f.expect("evict under status "+tc.status, f.evict("r1", "", ""), 429, "", budgetExhausted(tc.cause))
	}

	rv := f.status("b", `{"disruptionsAllowed":2}`)["metadata"].(map[string]any)["resourceVersion"]
	f.expect("dry-run evict under a budget of 2", f.evict("r1", "?dryRun=All", ""), 201, "", evicted)
	if got := f.get("b")["metadata"].(map[string]any)["resourceVersion"]; got != rv {
		t.Errorf("budget resourceVersion after a dry run = %v, want %v (unchanged)", got, rv)
	}
	f.expect("evict under a budget of 2", f.evict("r1", "", ""), 201, "", evicted)
	c.mustDo(404, "GET", budgetPods+"/r1", "")
	b := f.get("b")
	st := b["status"].(map[string]any)
	if st["disruptionsAllowed"] != 1.0 || len(st["disruptedPods"].(map[string]any)) != 1 || st["disruptedPods"].(map[string]any)["r1"] == nil {
		t.Errorf("budget status after an eviction = %v, want 1 disruption allowed and r1 disrupted", st)
	}
	mf := b["metadata"].(map[string]any)["managedFields"].([]any)
	last, _ := json.Marshal(mf[len(mf)-1].(map[string]any)["fieldsV1"])
	if e := mf[len(mf)-1].(map[string]any); e["manager"] != "kube-apiserver" || e["subresource"] != "status" ||
		string(last) != `{"f:status":{"f:disruptedPods":{".":{},"f:r1":{}},"f:disruptionsAllowed":{}}}` {
		t.Errorf("budget's last managedFields entry = %v, want kube-apiserver's status Update of disruptedPods and disruptionsAllowed", e)
	}
	f.pod("r2", "Running", true)
	f.expect("evict the last disruption allowed", f.evict("r2", "", ""), 201, "", evicted)
	st = f.get("b")["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	var cond map[string]any
	if len(conds) == 1 {
		cond, _ = conds[0].(map[string]any)
	}
	if st["disruptionsAllowed"] != 0.0 || len(st["disruptedPods"].(map[string]any)) != 2 || cond["type"] != "DisruptionAllowed" ||
		cond["status"] != "False" || cond["reason"] != "InsufficientPods" || cond["message"] != "" || cond["observedGeneration"] != 1.0 {
		t.Errorf("budget status after the last eviction = %v, want none allowed, 2 disrupted, DisruptionAllowed False (InsufficientPods)", st)
	}

	// An unready pod passes uncharged while the budget is healthy, on
	// the condition that the pod is unchanged: a failed precondition
	// answers the budget's 429.
	f.pod("unready", "Running", false)
	rv = f.get("b")["metadata"].(map[string]any)["resourceVersion"]
	f.expect("evict an unready pod with a stale uid", f.evict("unready", "", `{"preconditions":{"uid":"nope"}}`), 429, "10", budgetBusyB)
	if r := f.evict("unready", "", `{"preconditions":{"uid":"nope","resourceVersion":"1"}}`); r.code != 409 ||
		!strings.Contains(string(r.body), `Operation cannot be fulfilled on Pod \"unready\": the UID in the precondition (nope)`) {
		t.Errorf("evict an unready pod with a stale uid and resourceVersion = %d %s, want 409", r.code, r.body)
	}
	f.expect("evict an unready pod", f.evict("unready", "", ""), 201, "", evicted)
	if got := f.get("b")["metadata"].(map[string]any)["resourceVersion"]; got != rv {
		t.Errorf("budget resourceVersion after evicting an unready pod = %v, want %v (uncharged)", got, rv)
	}

	// The budget is charged before the delete's preconditions are
	// checked.
	f.status("b", `{"disruptionsAllowed":1}`)
	f.pod("r3", "Running", true)
	if r := f.evict("r3", "", `{"preconditions":{"uid":"nope"}}`); r.code != 409 {
		t.Errorf("evict with a stale uid = %d %s, want 409", r.code, r.body)
	}
	if st := f.get("b")["status"].(map[string]any); st["disruptionsAllowed"] != 0.0 || st["disruptedPods"].(map[string]any)["r3"] == nil {
		t.Errorf("budget status after a refused delete = %v, want charged for r3", st)
	}

	f.budget("all", `{"maxUnavailable":1,"selector":{}}`)
	f.expect("evict under two budgets", f.evict("r3", "", ""), 500, "", `{"kind":"Status","apiVersion":"v1","metadata":{},`+
		`"status":"Failure","message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500}`)
	f.pod("done", "Succeeded", false)
	f.expect("evict a Succeeded pod under two budgets", f.evict("done", "", ""), 201, "", evicted)
	f.pod("held", "Running", true, "example.com/hold")
	c.mustDo(200, "DELETE", budgetPods+"/held", "")
	f.expect("evict a pod being deleted under two budgets", f.evict("held", "", ""), 201, "", evicted)
	held := c.mustDo(200, "GET", budgetPods+"/held", "")
	if !strings.Contains(fmt.Sprint(held["status"]), "DisruptionTarget") {
		t.Errorf("pod being deleted after its eviction: status %v, want a DisruptionTarget condition", held["status"])
	}
	c.mustDo(200, "DELETE", budgetBudgets+"/all", "")

	many := map[string]string{}
	for i := range 2001 {
		many[fmt.Sprint("p", i)] = "2026-11-27T13:00:00Z"
	}
	dp, _ := json.Marshal(many)
	f.status("b", `{"disruptionsAllowed":1,"disruptedPods":`+string(dp)+`}`)
	f.expect("evict under a budget of too many disrupted pods", f.evict("r3", "", ""), 403, "", `{"kind":"Status","apiVersion":"v1",`+
		`"metadata":{},"status":"Failure","message":"poddisruptionbudget.policy \"b\" is forbidden: DisruptedPods map too big - `+
		`too many evictions not confirmed by PDB controller","reason":"Forbidden","details":{"name":"b","group":"policy",`+
		`"kind":"poddisruptionbudget"},"code":403}`)
}
