// SPDX-License-Identifier: Apache-2.0

package scenario

import "testing"

// testPodLog checks pods/log (kubectl logs) of a pod that no node runs:
// an empty log (204), and the real server's errors for the container and
// the options.
func testPodLog(t *testing.T, f *fixture) {
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	for _, p := range []string{
		`{"metadata":{"name":"one"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		`{"metadata":{"name":"two"},"spec":{"initContainers":[{"name":"i","image":"busybox"}],"containers":[{"name":"c","image":"nginx"},{"name":"d","image":"nginx"}]}}`,
	} {
		if r := f.send(t, "POST", pods, "application/json", p); r.code != 201 {
			t.Fatalf("create pod = %d %s", r.code, r.body)
		}
	}
	for _, q := range []string{"/one/log", "/one/log?container=c", "/two/log?container=i", "/two/log?container=d&follow=true&tailLines=3"} {
		if r := f.send(t, "GET", pods+q, "", ""); r.code != 204 || len(r.body) != 0 {
			t.Errorf("GET %s = %d %q, want 204 and no log", q, r.code, r.body)
		}
	}
	expectStatus(t, "log of a pod of two containers", f.send(t, "GET", pods+"/two/log", "", ""), 400, "BadRequest",
		"a container name must be specified for pod two, choose one of: [i c d]")
	expectStatus(t, "log of a missing container", f.send(t, "GET", pods+"/one/log?container=nosuch", "", ""), 400, "BadRequest",
		"container nosuch is not valid for pod one")
	expectStatus(t, "log of a missing pod", f.send(t, "GET", pods+"/nosuch/log", "", ""), 404, "NotFound",
		`pods "nosuch" not found`)
	expectStatus(t, "negative tailLines", f.send(t, "GET", pods+"/one/log?tailLines=-1", "", ""), 422, "Invalid",
		`PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`)
	expectStatus(t, "POST of a log", f.send(t, "POST", pods+"/one/log", "application/json", "{}"), 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}
