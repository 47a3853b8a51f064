// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as a credential plugin: with
// KUBELOOP_TEST_EXEC_PLUGIN=1 in its environment (given through
// ExecConfig.Env) it runs execPluginMain instead of the tests. This is the
// only TestMain of package kube; extend it rather than adding another.
func TestMain(m *testing.M) {
	if os.Getenv("KUBELOOP_TEST_EXEC_PLUGIN") == "1" {
		os.Exit(execPluginMain())
	}
	if dir := os.Getenv("KUBELOOP_TEST_EXEC_HOST"); dir != "" {
		os.Exit(execHostMain(dir))
	}
	os.Exit(m.Run())
}

// execPluginMain is the test plugin. Each run adds one to the counter in
// $KUBELOOP_TEST_EXEC_DIR/count, saves what it was given there (info-N:
// KUBERNETES_EXEC_INFO; env-N: $KUBELOOP_TEST_INHERITED) and prints an
// ExecCredential as $KUBELOOP_TEST_EXEC_MODE says:
//
//	token   status.token "tok-N" (or $KUBELOOP_TEST_EXEC_TOKEN)
//	cert    the client certificate in cert-N.pem and key-N.pem
//	fail    a message on stderr, exit status 3
//	garbage truncated JSON holding a token
//	hang    sleeps for an hour
//	endless prints without end
//	slow    sleeps $KUBELOOP_TEST_EXEC_SLEEP, then prints a token
//	stderr  writes to standard error without end
//	orphan  starts a child that sleeps for an hour, writes "plugin PID
//	        child PID" on standard error, then sleeps for an hour
//	sleep   sleeps for an hour, and neither counts nor saves anything
//
// The credential expires in an hour, or as $KUBELOOP_TEST_EXEC_EXPIRY says
// ("past", "none").
func execPluginMain() int {
	if os.Getenv("KUBELOOP_TEST_EXEC_MODE") == "sleep" {
		time.Sleep(time.Hour)
		return 0
	}
	dir := os.Getenv("KUBELOOP_TEST_EXEC_DIR")
	n := 1
	if b, err := os.ReadFile(filepath.Join(dir, "count")); err == nil {
		n, _ = strconv.Atoi(string(b))
		n++
	}
	save := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	save("count", strconv.Itoa(n))
	save(fmt.Sprintf("info-%d", n), os.Getenv("KUBERNETES_EXEC_INFO"))
	save(fmt.Sprintf("env-%d", n), os.Getenv("KUBELOOP_TEST_INHERITED"))

	status := map[string]string{}
	switch os.Getenv("KUBELOOP_TEST_EXEC_MODE") {
	case "fail":
		fmt.Fprintln(os.Stderr, "boom: the identity provider refused stderr-SECRET")
		return 3
	case "hang":
		time.Sleep(time.Hour)
		return 0
	case "endless", "stderr":
		out := os.Stdout
		if os.Getenv("KUBELOOP_TEST_EXEC_MODE") == "stderr" {
			out = os.Stderr
		}
		line := []byte(strings.Repeat("x", 4<<10))
		for {
			out.Write(line) // the write error, if any, is ignored
		}
	case "orphan":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "KUBELOOP_TEST_EXEC_MODE=sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "plugin %d child %d\n", os.Getpid(), child.Process.Pid)
		time.Sleep(time.Hour)
		return 0
	case "garbage":
		fmt.Print(`{"apiVersion": "client.authentication.k8s.io/v1", "status": {"token": "leaked-secret"`)
		return 0
	case "cert":
		cert, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("cert-%d.pem", n)))
		key, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("key-%d.pem", n)))
		status["clientCertificateData"], status["clientKeyData"] = string(cert), string(key)
	default: // token, slow
		if d, err := time.ParseDuration(os.Getenv("KUBELOOP_TEST_EXEC_SLEEP")); err == nil {
			time.Sleep(d)
		}
		status["token"] = os.Getenv("KUBELOOP_TEST_EXEC_TOKEN")
		if status["token"] == "" {
			status["token"] = fmt.Sprintf("tok-%d", n)
		}
	}
	switch os.Getenv("KUBELOOP_TEST_EXEC_EXPIRY") {
	case "past":
		status["expirationTimestamp"] = time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	case "none":
	default:
		status["expirationTimestamp"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"apiVersion": execAPIVersionV1, "kind": "ExecCredential", "status": status,
	})
	return 0
}

// execHostMain runs the test plugin in mode orphan, its state in dir, as a
// program that uses package kube would: it stands for this process in
// tests of what becomes of a plugin when the process that ran it dies.
func execHostMain(dir string) int {
	a, err := newExecAuth(&Config{Exec: testPlugin(dir, "orphan")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = a.exec(context.Background())
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// testPlugin returns an ExecConfig that runs the test plugin in mode,
// keeping its state in dir, with extra variables. Under -race the plugin
// exits at once (GORACE=atexit_sleep_ms=0) instead of after the race
// detector's one-second wait at exit, which each run cost in real time.
func testPlugin(dir, mode string, extra ...ExecEnvVar) *ExecConfig {
	return &ExecConfig{
		Command: os.Args[0],
		Env: append([]ExecEnvVar{
			{Name: "GORACE", Value: "atexit_sleep_ms=0"},
			{Name: "KUBELOOP_TEST_EXEC_PLUGIN", Value: "1"},
			{Name: "KUBELOOP_TEST_EXEC_DIR", Value: dir},
			{Name: "KUBELOOP_TEST_EXEC_MODE", Value: mode},
		}, extra...),
		APIVersion:      execAPIVersionV1,
		InteractiveMode: "Never",
	}
}

// pluginRuns returns how many times the test plugin ran in dir.
func pluginRuns(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "count"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(string(b))
	return n
}

func TestExecCachesUntilExpiry(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	tests := []struct {
		expiry string
		want   []string // Authorization of successive requests
	}{
		{"", []string{"Bearer tok-1", "Bearer tok-1", "Bearer tok-1"}},
		{"none", []string{"Bearer tok-1", "Bearer tok-1"}},
		{"past", []string{"Bearer tok-1", "Bearer tok-2", "Bearer tok-3"}},
	}
	for _, tt := range tests {
		t.Run("expiry "+tt.expiry, func(t *testing.T) {
			dir := t.TempDir()
			ex := testPlugin(dir, "token", ExecEnvVar{Name: "KUBELOOP_TEST_EXEC_EXPIRY", Value: tt.expiry})
			c, err := (&Config{Host: srv.URL, Exec: ex}).HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			if n := pluginRuns(t, dir); n != 0 {
				t.Fatalf("HTTPClient ran the plugin %d times, want 0 before the first request", n)
			}
			for i, want := range tt.want {
				e, err := get(t, c, srv.URL)
				if err != nil || e.Authorization != want {
					t.Fatalf("request %d: Authorization %q, error %v; want %q", i, e.Authorization, err, want)
				}
			}
			if n, want := pluginRuns(t, dir), len(slicesCompact(tt.want)); n != want {
				t.Errorf("plugin ran %d times, want %d", n, want)
			}
		})
	}
}

// slicesCompact returns s without consecutive duplicates.
func slicesCompact(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func TestExecConcurrentRequestsShareOneRun(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	dir := t.TempDir()
	c, err := (&Config{Host: srv.URL, Exec: testPlugin(dir, "token")}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if e, err := get(t, c, srv.URL); err != nil || e.Authorization != "Bearer tok-1" {
				t.Errorf("GET: Authorization %q, error %v; want Bearer tok-1", e.Authorization, err)
			}
		})
	}
	wg.Wait()
	if n := pluginRuns(t, dir); n != 1 {
		t.Errorf("plugin ran %d times for 8 concurrent requests, want 1", n)
	}
}

// rejecting answers 401 to any token but good, and counts requests.
type rejecting struct {
	good string
	mu   sync.Mutex
	seen []string // "Authorization body" of each request
}

func (h *rejecting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get("Authorization")+" "+string(body))
	h.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+h.good {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	echoHandler().ServeHTTP(w, r)
}

func TestExecRerunsOn401(t *testing.T) {
	tests := []struct {
		name     string
		body     func() io.Reader
		token    string // the plugin's fixed token; "" counts
		wantCode int
		wantRuns int
		wantSeen []string
	}{
		{
			name: "replayable body is sent again with the new token",
			body: func() io.Reader { return strings.NewReader("payload") }, wantCode: 200, wantRuns: 2,
			wantSeen: []string{"Bearer tok-1 payload", "Bearer tok-2 payload"},
		},
		{
			name: "no body", wantCode: 200, wantRuns: 2,
			wantSeen: []string{"Bearer tok-1 ", "Bearer tok-2 "},
		},
		{
			name: "a body that cannot be replayed returns the 401",
			body: func() io.Reader { return io.MultiReader(strings.NewReader("payload")) }, wantCode: 401, wantRuns: 1,
			wantSeen: []string{"Bearer tok-1 payload"},
		},
		{
			name: "the same token again returns the 401", token: "same", wantCode: 401, wantRuns: 2,
			wantSeen: []string{"Bearer same "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &rejecting{good: "tok-2"}
			srv := httptest.NewServer(h)
			defer srv.Close()
			dir := t.TempDir()
			ex := testPlugin(dir, "token", ExecEnvVar{Name: "KUBELOOP_TEST_EXEC_TOKEN", Value: tt.token})
			c, err := (&Config{Host: srv.URL, Exec: ex}).HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			var body io.Reader
			if tt.body != nil {
				body = tt.body()
			}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, body)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("POST error: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || pluginRuns(t, dir) != tt.wantRuns {
				t.Errorf("POST = %d after %d plugin runs, want %d after %d", resp.StatusCode, pluginRuns(t, dir), tt.wantCode, tt.wantRuns)
			}
			if strings.Join(h.seen, "|") != strings.Join(tt.wantSeen, "|") {
				t.Errorf("server saw %q, want %q", h.seen, tt.wantSeen)
			}
			if req.Header.Get("Authorization") != "" {
				t.Errorf("the caller's request got an Authorization header")
			}
			if tt.token == "" {
				// Whatever happened, the next request carries the new token.
				if e, err := get(t, c, srv.URL); err != nil || e.Authorization != "Bearer tok-2" {
					t.Errorf("next GET: Authorization %q, error %v; want Bearer tok-2", e.Authorization, err)
				}
			}
		})
	}
}

func TestExecInfoAndEnvironment(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	t.Setenv("KUBELOOP_TEST_INHERITED", "from-the-parent")
	for _, provide := range []bool{false, true} {
		t.Run(fmt.Sprintf("provideClusterInfo %v", provide), func(t *testing.T) {
			dir := t.TempDir()
			ex := testPlugin(dir, "token")
			ex.ProvideClusterInfo = provide
			cfg := &Config{Host: srv.URL, Exec: ex, TLS: TLSConfig{ServerName: "kube.test"}}
			c, err := cfg.HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := get(t, c, srv.URL); err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(filepath.Join(dir, "info-1"))
			var info struct {
				APIVersion, Kind string
				Spec             struct {
					Interactive *bool
					Cluster     *struct {
						Server        string `json:"server"`
						TLSServerName string `json:"tls-server-name"`
					}
				}
			}
			if err := json.Unmarshal(raw, &info); err != nil {
				t.Fatalf("KUBERNETES_EXEC_INFO %q: %v", raw, err)
			}
			if info.APIVersion != execAPIVersionV1 || info.Kind != "ExecCredential" || info.Spec.Interactive == nil || *info.Spec.Interactive {
				t.Errorf("KUBERNETES_EXEC_INFO = %s, want a v1 ExecCredential with spec.interactive false", raw)
			}
			if got := info.Spec.Cluster != nil; got != provide {
				t.Fatalf("KUBERNETES_EXEC_INFO = %s: spec.cluster present %v, want %v", raw, got, provide)
			}
			if provide && (info.Spec.Cluster.Server != srv.URL || info.Spec.Cluster.TLSServerName != "kube.test") {
				t.Errorf("spec.cluster = %+v, want server %s and tls-server-name kube.test", *info.Spec.Cluster, srv.URL)
			}
			if env, _ := os.ReadFile(filepath.Join(dir, "env-1")); string(env) != "from-the-parent" {
				t.Errorf("plugin saw KUBELOOP_TEST_INHERITED=%q, want the parent's environment", env)
			}
		})
	}
}

func TestExecErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		ex   *ExecConfig
		want []string
	}{
		{"plugin fails", testPlugin(dir, "fail"), []string{filepath.Base(os.Args[0]), "exit status 3", "standard error"}},
		{"output is not JSON", testPlugin(dir, "garbage"), []string{"decode its output: not JSON"}},
		{"command not found", &ExecConfig{Command: "kubeloop-no-such-plugin", InstallHint: "brew install it"}, []string{`"kubeloop-no-such-plugin"`, "brew install it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := (&Config{Host: "http://127.0.0.1:1", Exec: tt.ex}).HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			c.Transport.(*authTransport).exec.stderr = &stderr
			_, err = get(t, c, "http://127.0.0.1:1/")
			if err == nil {
				t.Fatal("GET succeeded, want the plugin's error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("GET error = %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "leaked-secret") {
				t.Errorf("GET error = %q: it quotes the plugin's output", err)
			}
			// The plugin's standard error goes to the process's, as with
			// kubectl, and never into an error.
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("GET error = %q: it quotes the plugin's standard error", err)
			}
			if tt.name == "plugin fails" && !strings.Contains(stderr.String(), "boom") {
				t.Errorf("the plugin's standard error was %q, want its message passed on", stderr.String())
			}
		})
	}
}

func TestExecClientCertificateRotatesOn401(t *testing.T) {
	ca, clientCA := newTestCA(t, "ca"), newTestCA(t, "client-ca")
	// alice's certificate has been revoked: the server answers 401 to it.
	srv := newTLSServer(t, ca, []string{"127.0.0.1"}, clientCA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName == "alice" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		echoHandler().ServeHTTP(w, r)
	}))
	dir := t.TempDir()
	for i, cn := range []string{"alice", "bob"} {
		certPEM, keyPEM, _ := clientCA.issue(t, cn)
		writeFile(t, filepath.Join(dir, fmt.Sprintf("cert-%d.pem", i+1)), string(certPEM))
		writeFile(t, filepath.Join(dir, fmt.Sprintf("key-%d.pem", i+1)), string(keyPEM))
	}
	c, err := (&Config{Host: srv.URL, TLS: TLSConfig{CAData: ca.pem}, Exec: testPlugin(dir, "cert")}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	for i := range 2 {
		e, err := get(t, c, srv.URL)
		if err != nil || e.ClientCN != "bob" || e.Authorization != "" {
			t.Fatalf("GET %d: client certificate %q, Authorization %q, error %v; want bob's certificate and no header", i, e.ClientCN, e.Authorization, err)
		}
	}
	if n := pluginRuns(t, dir); n != 2 {
		t.Errorf("plugin ran %d times, want 2 (alice, then bob after the 401)", n)
	}
}
