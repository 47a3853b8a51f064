// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// A test starts a server, seeds it, talks to it through the in-process
// transport (or hands s.Config() to a kube client), makes it fail, and
// checks what the client asked for.
func Example() {
	s := kubetest.New(kubetest.Options{})
	defer s.Close()

	configmaps := kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	if _, err := s.Create(configmaps, map[string]any{
		"metadata": map[string]any{"name": "demo", "namespace": "default"},
		"data":     map[string]any{"greeting": "hello"},
	}); err != nil {
		fmt.Println(err)
		return
	}

	hc := &http.Client{Transport: s.Transport()}
	get := func() string {
		resp, err := hc.Get("https://kubetest.invalid/api/v1/namespaces/default/configmaps/demo")
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return fmt.Sprint(resp.StatusCode, " ", strings.Contains(string(body), `"greeting":"hello"`))
	}
	fmt.Println(get())

	s.FailNext(1, nil, kube.NewStatusError(http.StatusInternalServerError, kube.ReasonInternalError, "injected"))
	fmt.Println(get())
	fmt.Println(get())
	fmt.Println(s.Count("get", "configmaps"))
	// Output:
	// 200 true
	// 500 false
	// 200 true
	// 3
}
