// SPDX-License-Identifier: Apache-2.0

// Command kubetest-server runs kube/kubetest, the in-process Kubernetes API
// server of kubeloop, on a loopback port, writes a kubeconfig for it and
// serves until SIGINT or SIGTERM. Point kubectl or a controller at it:
//
//	go run ./cmd/kubetest-server -kubeconfig /tmp/kubetest.kubeconfig
//	kubectl --kubeconfig /tmp/kubetest.kubeconfig get namespaces
//
// Flags:
//
//	-addr 127.0.0.1:0    address to listen on (port 0 picks a free one)
//	-tls=true            serve HTTPS with a freshly generated CA (written
//	                     into the kubeconfig); -tls=false serves plain HTTP
//	-kubeconfig PATH     where to write the kubeconfig (default
//	                     kubetest.kubeconfig in the temporary directory)
//	-token TOKEN         bearer token of user admin (default: random)
//	-sharded-list-and-watch=true
//	                     honour ?shardSelector= as kube-apiserver 1.36 with
//	                     the ShardedListAndWatch feature gate on; false
//	                     ignores it, as a server with the gate off does
//	-garbage-collection=true
//	                     run the garbage collector, as kube-controller-manager
//	                     beside kube-apiserver does; false leaves dependents
//	                     of deleted owners in place
//	-webhook-service NAMESPACE/NAME:PORT=HOST:PORT
//	                     where the admission and conversion webhooks whose
//	                     clientConfig names that service are called
//	                     (kubetest runs no pods); repeat for several services
//	-v                   log every request
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kubetest-server:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// options are the parsed flags.
type options struct {
	addr, kubeconfig, token string
	tls, verbose            bool
	// shardedListAndWatch is the ShardedListAndWatch feature gate.
	shardedListAndWatch bool
	// garbageCollection runs the server's garbage collector.
	garbageCollection bool
	// webhookServices maps NAMESPACE/NAME:PORT to the HOST:PORT that
	// serves it (-webhook-service).
	webhookServices serviceMap
}

// serviceMap is the value of the repeatable -webhook-service flag.
type serviceMap map[string]string

func (m serviceMap) String() string { return fmt.Sprint(map[string]string(m)) }

// Set reads NAMESPACE/NAME:PORT=HOST:PORT.
func (m serviceMap) Set(v string) error {
	svc, addr, ok := strings.Cut(v, "=")
	ns, rest, okNS := strings.Cut(svc, "/")
	name, port, okPort := strings.Cut(rest, ":")
	if !ok || !okNS || !okPort || ns == "" || name == "" || addr == "" {
		return fmt.Errorf("want NAMESPACE/NAME:PORT=HOST:PORT, got %q", v)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port of %q: %w", v, err)
	}
	m[svc] = addr
	return nil
}

// resolve is kubetest.Options.WebhookServices for m.
func (m serviceMap) resolve(namespace, name string, port int32) (string, error) {
	if addr, ok := m[fmt.Sprintf("%s/%s:%d", namespace, name, port)]; ok {
		return addr, nil
	}
	return "", fmt.Errorf("no -webhook-service for %s/%s:%d", namespace, name, port)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{webhookServices: serviceMap{}}
	fs := flag.NewFlagSet("kubetest-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	fs.BoolVar(&o.tls, "tls", true, "serve HTTPS with a generated CA; false serves plain HTTP")
	fs.StringVar(&o.kubeconfig, "kubeconfig", filepath.Join(os.TempDir(), "kubetest.kubeconfig"), "path of the kubeconfig to write")
	fs.StringVar(&o.token, "token", "", "bearer token of user admin (default: random)")
	fs.BoolVar(&o.shardedListAndWatch, "sharded-list-and-watch", true, "honour ?shardSelector= as Kubernetes 1.36 with the ShardedListAndWatch feature gate on; false ignores it, as a server with the gate off")
	fs.BoolVar(&o.garbageCollection, "garbage-collection", true, "run the garbage collector, as kube-controller-manager does; false leaves dependents of deleted owners in place")
	fs.Var(o.webhookServices, "webhook-service", "`NAMESPACE/NAME:PORT=HOST:PORT`: where admission and conversion webhooks of that service are called (repeatable)")
	fs.BoolVar(&o.verbose, "v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.kubeconfig == "" {
		return o, errors.New("-kubeconfig must not be empty")
	}
	return o, nil
}

// serverOptions are the options of the server o describes.
func (o options) serverOptions(log *slog.Logger) kubetest.Options {
	return kubetest.Options{
		Tokens:                     map[string]string{o.token: "admin"},
		DisableShardedListAndWatch: !o.shardedListAndWatch,
		DisableGarbageCollection:   !o.garbageCollection,
		WebhookServices:            o.webhookServices.resolve,
		Logger:                     log,
	}
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.token == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		o.token = hex.EncodeToString(b[:])
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	s := kubetest.New(o.serverOptions(log))
	defer s.Close()
	l, err := s.ListenAddr(o.addr, o.tls)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := writeKubeconfig(o.kubeconfig, l.URL, l.CAData, o.token); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kubetest-server serving %s\nkubeconfig written to %s\n  kubectl --kubeconfig %s get namespaces\n",
		l.URL, o.kubeconfig, o.kubeconfig)
	<-ctx.Done()
	fmt.Fprintln(stdout, "kubetest-server stopping")
	return nil
}

// kubeconfigYAML renders a kubeconfig in the plain block style kubectl
// writes: keys in order, one context, cluster and user named kubetest.
func kubeconfigYAML(server string, caPEM []byte, token string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nclusters:\n- cluster:\n")
	if len(caPEM) > 0 {
		b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	}
	b.WriteString("    server: " + server + "\n")
	b.WriteString("  name: kubetest\n")
	b.WriteString("contexts:\n- context:\n    cluster: kubetest\n    namespace: default\n    user: kubetest-admin\n  name: kubetest\n")
	b.WriteString("current-context: kubetest\nkind: Config\npreferences: {}\n")
	b.WriteString("users:\n- name: kubetest-admin\n  user:\n    token: " + token + "\n")
	return b.String()
}

// writeKubeconfig writes the kubeconfig to path, readable by its owner
// only (it holds a token), making the directory if needed.
func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(kubeconfigYAML(server, caPEM, token)), 0o600); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
