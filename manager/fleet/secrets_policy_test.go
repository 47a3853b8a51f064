// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// logs is a log of text lines, safe for concurrent use.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// secretsFleet is a manager on an in-process host server holding
// namespace fleet, whose fleet has s (Client and Namespace filled in)
// as its provider, wrapped in a recorder.
type secretsFleet struct {
	host *kubetest.Server
	f    *fleet.Fleet
	rec  *recorder
	logs *logs
	stop func() // stops the manager and checks it returned nil
}

// runSecrets starts a secretsFleet; inside a bubble, call it inside.
// The Secrets given exist before it starts.
func runSecrets(t *testing.T, fo fleet.Options, s fleet.Secrets, objs ...map[string]any) *secretsFleet {
	t.Helper()
	sf := &secretsFleet{host: newServer(t, 0), logs: &logs{}}
	if _, err := sf.host.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "fleet"}}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		if _, err := sf.host.Create(secrets, obj); err != nil {
			t.Fatal(err)
		}
	}
	mgr, err := manager.New(config(sf.host), manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	s.Client, s.Namespace, s.Logger = mgr.APIClient(), "fleet", sf.logs.logger()
	sf.rec = &recorder{p: s}
	fo.Providers, fo.Logger = []fleet.Provider{sf.rec}, sf.logs.logger()
	if sf.f, err = fleet.New(mgr, fo); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	synctest.Wait()
	sf.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	}
	return sf
}

// recorder is a Provider that runs p, recording the Engage and
// Disengage calls p makes that succeed.
type recorder struct {
	p          fleet.Provider
	mu         sync.Mutex
	engaged    []*kube.Config
	disengaged int
}

func (r *recorder) Run(ctx context.Context, e fleet.Engager) error {
	return r.p.Run(ctx, recording{r, e})
}

// counts returns the engagements so far, the last config engaged, and
// the disengagements.
func (r *recorder) counts() (int, *kube.Config, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var last *kube.Config
	if len(r.engaged) > 0 {
		last = r.engaged[len(r.engaged)-1]
	}
	return len(r.engaged), last, r.disengaged
}

type recording struct {
	r *recorder
	e fleet.Engager
}

func (g recording) Engage(ctx context.Context, name string, cfg *kube.Config) error {
	err := g.e.Engage(ctx, name, cfg)
	if err == nil {
		g.r.mu.Lock()
		g.r.engaged = append(g.r.engaged, cfg)
		g.r.mu.Unlock()
	}
	return err
}

func (g recording) Disengage(ctx context.Context, name string) error {
	err := g.e.Disengage(ctx, name)
	if err == nil {
		g.r.mu.Lock()
		g.r.disengaged++
		g.r.mu.Unlock()
	}
	return err
}

// kubeconfigWith is a kubeconfig whose cluster and user have the fields
// given (the contents of YAML flow mappings).
func kubeconfigWith(cluster, user string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: " +
		"default}\nclusters:\n- name: c\n  cluster: {" + cluster + "}\nusers:\n- name: u\n  user: {" + user + "}\n"
}

// TestSecretsPolicy checks that a kubeconfig Secret that would run a
// command, read a file of the controller's, talk plain http, skip TLS
// verification or use a proxy is refused by default, with a log naming
// the Secret and the field, and nothing of it done (no command run, no
// cluster engaged); and that each is honoured once allowed by name.
func TestSecretsPolicy(t *testing.T) {
	const server = "server: 'https://127.0.0.1:1'" // no name to resolve: no DNS in a bubble
	for _, tc := range []struct {
		name          string
		cluster, user string // with MARKER for the path of a file that must not appear
		field         string
		allow         kube.KubeconfigPolicy
		honoured      func(*kube.Config) bool
	}{
		{"exec", server, "exec: {command: /bin/sh, args: [-c, 'echo x > MARKER']}", "users[0].user.exec",
			kube.KubeconfigPolicy{AllowExec: true}, func(c *kube.Config) bool { return c.Exec != nil }},
		{"token file that does not exist", server, "tokenFile: MARKER", "users[0].user.tokenFile",
			kube.KubeconfigPolicy{AllowFiles: true}, func(c *kube.Config) bool { return c.BearerTokenFile != "" }},
		{"client certificate file", server, "client-certificate: MARKER, client-key: MARKER", "users[0].user.client-certificate",
			kube.KubeconfigPolicy{AllowFiles: true}, func(c *kube.Config) bool { return c.TLS.CertFile != "" }},
		{"plain http", "server: 'http://127.0.0.1:1'", "token: t", "clusters[0].cluster.server",
			kube.KubeconfigPolicy{AllowInsecureHTTP: true}, func(c *kube.Config) bool { return strings.HasPrefix(c.Host, "http:") }},
		{"insecure-skip-tls-verify", server + ", insecure-skip-tls-verify: true", "token: t", "clusters[0].cluster.insecure-skip-tls-verify",
			kube.KubeconfigPolicy{AllowInsecureSkipTLSVerify: true}, func(c *kube.Config) bool { return c.TLS.Insecure }},
		{"proxy-url", server + ", proxy-url: 'http://proxy.test'", "token: t", "clusters[0].cluster.proxy-url",
			kube.KubeconfigPolicy{AllowProxy: true}, func(c *kube.Config) bool { return c.ProxyURL != "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "marker")
			kc := kubeconfigWith(tc.cluster, strings.ReplaceAll(tc.user, "MARKER", marker))
			for _, allowed := range []bool{false, true} {
				synctest.Test(t, func(t *testing.T) {
					member := newServer(t, 0)
					var seen []*kube.Config
					var mu sync.Mutex
					// Refused, the Secret goes the default way (were it
					// engaged, its cluster would start as written).
					// Allowed, Configure sees what was parsed, and
					// engages the in-process member instead.
					var s fleet.Secrets
					if allowed {
						s.Policy = tc.allow
						s.Configure = func(cfg *kube.Config) (*kube.Config, error) {
							mu.Lock()
							seen = append(seen, cfg)
							mu.Unlock()
							return config(member), nil
						}
					}
					sf := runSecrets(t, fleet.Options{}, s, secret("tenant", kc, nil))
					defer sf.stop()
					mu.Lock()
					defer mu.Unlock()
					names := sf.f.Names()
					if !allowed {
						if len(names) != 0 {
							t.Errorf("zero Policy: engaged %v, want the Secret refused", names)
							// What a controller would do: a request,
							// which runs an exec plugin first.
							c, _ := sf.f.Cluster(names[0])
							ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
							_ = c.APIClient().Get(ctx, kube.Key{Namespace: "default", Name: "x"}, &kube.ConfigMap{})
							cancel()
						}
						if _, err := os.Stat(marker); err == nil {
							t.Errorf("%s exists: the kubeconfig's command ran", marker)
						}
						if l := sf.logs.String(); !strings.Contains(l, "fleet/tenant") || !strings.Contains(l, tc.field+": refused") {
							t.Errorf("zero Policy: logs %q, want the Secret fleet/tenant and %s refused named", l, tc.field)
						}
						return
					}
					if len(names) != 1 || len(seen) != 1 || !tc.honoured(seen[0]) {
						t.Errorf("Policy %+v: engaged %v, configured %d, want tenant engaged with the field honoured", tc.allow, names, len(seen))
					}
				})
			}
		})
	}
}

// TestSecretsKubeconfigUnchanged: a Secret changed but for its kubeconfig
// engages nothing again.
func TestSecretsKubeconfigUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		member := newServer(t, 0)
		s := fleet.Secrets{Configure: func(*kube.Config) (*kube.Config, error) { return config(member), nil }}
		kc := kubeconfigWith("server: 'https://member.test'", "token: t")
		sf := runSecrets(t, fleet.Options{}, s, secret("a", kc, nil))
		defer sf.stop()
		for i := range 100 {
			sec := secret("a", kc, nil)
			sec["data"].(map[string]any)["other"] = base64.StdEncoding.EncodeToString([]byte{byte(i)})
			if _, err := sf.host.Update(secrets, sec); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		if engaged, _, disengaged := sf.rec.counts(); engaged != 1 || disengaged != 0 {
			t.Errorf("100 updates of another key: %d engagements, %d disengagements, want 1 and 0", engaged, disengaged)
		}
	})
}
