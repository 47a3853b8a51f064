// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the demo: the mirror, with leader election and metrics, on
// an in-process kubetest API server, taken through the life of a source
// while the story is told on stdout.

// demoTimeout bounds the whole demo; it takes well under a second when
// all goes well.
const demoTimeout = 30 * time.Second

// runDemo runs the demo and returns exitOK if every expected state was
// reached in time.
func runDemo(ctx context.Context, out io.Writer, log *slog.Logger) int {
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	if err := demo(ctx, out, log); err != nil {
		fmt.Fprintf(out, "demo failed: %v\n", err)
		return exitRuntime
	}
	fmt.Fprintln(out, "demo done: every expected state was reached")
	return exitOK
}

// demoStory is the demo's view of the cluster: what it last saw, and
// where it tells what changed.
type demoStory struct {
	out    io.Writer
	client *kube.Client
	source kube.Key
	// copies maps each namespace holding a copy to the copy's password.
	copies map[string]string
	// sourceThere says the source was there, last time it was looked at.
	sourceThere bool
	// stopped is closed when the mirror has stopped, with stopErr set.
	stopped <-chan struct{}
	stopErr error
}

func demo(ctx context.Context, out io.Writer, log *slog.Logger) error {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "demo"})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "started an in-process Kubernetes API server (kube/kubetest)")

	st := &demoStory{out: out, client: client, source: kube.Key{Namespace: "default", Name: "db-password"}, copies: map[string]string{}}
	for _, ns := range []*kube.Namespace{
		{ObjectMeta: kube.ObjectMeta{Name: "team-a"}},
		{ObjectMeta: kube.ObjectMeta{Name: "team-b", Labels: map[string]string{"mirror": "yes"}}},
		{ObjectMeta: kube.ObjectMeta{Name: "staging"}},
	} {
		if err := client.Create(ctx, ns); err != nil {
			return err
		}
	}
	source := &kube.Secret{
		ObjectMeta: kube.ObjectMeta{Namespace: st.source.Namespace, Name: st.source.Name, Annotations: map[string]string{
			mirror.AnnotationTo: "team-a", mirror.AnnotationToSelector: "mirror=yes"}},
		Data: map[string][]byte{"password": []byte("hunter2")},
	}
	if err := client.Create(ctx, source); err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded namespaces team-a, team-b (labelled mirror=yes) and staging, and secret %s with\n", st.source)
	fmt.Fprintf(out, "  %s: team-a\n  %s: mirror=yes\n", mirror.AnnotationTo, mirror.AnnotationToSelector)
	st.sourceThere = true

	metricsAddr, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	opts := mirror.Options{
		Workers:                 2, // cmd/mirror's defaults
		LeaderElection:          true,
		LeaderElectionNamespace: "default",
		MetricsBindAddress:      metricsAddr,
		HealthProbeBindAddress:  "0",
		Logger:                  log,
	}
	mgr, err := mirror.NewManager(srv.Config(), opts)
	if err != nil {
		return err
	}
	mirrorCtx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	st.stopped = stopped
	go func() {
		defer close(stopped)
		st.stopErr = mirror.Run(mirrorCtx, mgr, opts)
	}()
	defer func() {
		stop()
		<-stopped // before the server closes under it
	}()
	fmt.Fprintf(out, "started the mirror with leader election and metrics on http://%s/metrics\n", metricsAddr)

	if err := st.poll(ctx, "the mirror to win the Lease", func() (bool, error) { return leaseHeld(ctx, client) }); err != nil {
		return err
	}
	fmt.Fprintf(out, "the mirror won the leader election (Lease default/%s)\n", mirror.LeaseName)

	if err := st.expect(ctx, "copies in team-a and team-b", "hunter2", "team-a", "team-b"); err != nil {
		return err
	}

	fmt.Fprintf(out, "changing the password in %s\n", st.source)
	patch, err := json.Marshal(map[string]any{"data": map[string][]byte{"password": []byte("correct-horse")}})
	if err != nil {
		return err
	}
	if err := client.Patch(ctx, source, kube.Patch{Type: kube.MergePatch, Data: patch}); err != nil {
		return err
	}
	if err := st.expect(ctx, "the copies updated", "correct-horse", "team-a", "team-b"); err != nil {
		return err
	}

	fmt.Fprintln(out, "adding namespace team-c, labelled mirror=yes")
	if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "team-c", Labels: map[string]string{"mirror": "yes"}}}); err != nil {
		return err
	}
	if err := st.expect(ctx, "a copy in team-c", "correct-horse", "team-a", "team-b", "team-c"); err != nil {
		return err
	}

	fmt.Fprintf(out, "deleting %s\n", st.source)
	if err := client.Delete(ctx, source); err != nil {
		return err
	}
	if err := st.expect(ctx, "no copies left", ""); err != nil {
		return err
	}
	if err := st.poll(ctx, "the source to go", func() (bool, error) {
		err := st.look(ctx)
		return !st.sourceThere, err
	}); err != nil {
		return err
	}

	line, err := reconcileMetric(ctx, metricsAddr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "metrics: %s\n", line)

	stop()
	select {
	case <-stopped:
		if st.stopErr != nil {
			return fmt.Errorf("stop the mirror: %w", st.stopErr)
		}
	case <-ctx.Done():
		return fmt.Errorf("stop the mirror: %w", ctx.Err())
	}
	fmt.Fprintln(out, "stopped the mirror cleanly, as SIGTERM does")
	return nil
}

// expect waits until the copies are exactly in namespaces, all with the
// password, telling each change seen on the way.
func (st *demoStory) expect(ctx context.Context, what, password string, namespaces ...string) error {
	return st.poll(ctx, what, func() (bool, error) {
		if err := st.look(ctx); err != nil {
			return false, err
		}
		if !slices.Equal(slices.Sorted(maps.Keys(st.copies)), namespaces) {
			return false, nil
		}
		for _, p := range st.copies {
			if p != password {
				return false, nil
			}
		}
		return true, nil
	})
}

// poll calls cond every 20ms until it reports true, fails, the mirror
// stops, or ctx ends.
func (st *demoStory) poll(ctx context.Context, what string, cond func() (bool, error)) error {
	for {
		ok, err := cond()
		switch {
		case err != nil:
			return fmt.Errorf("wait for %s: %w", what, err)
		case ok:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waited for %s in vain: copies seen in %v, source there: %v", what,
				slices.Sorted(maps.Keys(st.copies)), st.sourceThere)
		case <-st.stopped:
			return fmt.Errorf("wait for %s: the mirror stopped: %v", what, st.stopErr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// look reads the copies and the source, and tells what changed since the
// last look.
func (st *demoStory) look(ctx context.Context) error {
	sel := kube.SelectorFromSet(map[string]string{mirror.LabelOfKind: "Secret", mirror.LabelOfNamespace: st.source.Namespace, mirror.LabelOfName: st.source.Name})
	list := &kube.List[kube.Secret]{}
	if err := st.client.List(ctx, list, kube.ListOptions{LabelSelector: sel}); err != nil {
		return err
	}
	now := map[string]string{}
	for _, c := range list.Items {
		now[c.Namespace] = string(c.Data["password"])
	}
	for _, ns := range slices.Sorted(maps.Keys(now)) {
		old, had := st.copies[ns]
		switch {
		case !had:
			fmt.Fprintf(st.out, "  created copy of secret %s in %s\n", st.source, ns)
		case old != now[ns]:
			fmt.Fprintf(st.out, "  updated copy of secret %s in %s\n", st.source, ns)
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(st.copies)) {
		if _, ok := now[ns]; !ok {
			fmt.Fprintf(st.out, "  deleted copy of secret %s in %s\n", st.source, ns)
		}
	}
	st.copies = now

	err := st.client.Get(ctx, st.source, &kube.Secret{})
	switch {
	case kube.IsNotFound(err):
		if st.sourceThere {
			fmt.Fprintf(st.out, "  secret %s is gone: the mirror released its finalizer\n", st.source)
		}
		st.sourceThere = false
	case err != nil:
		return err
	}
	return nil
}

// leaseHeld reports whether the mirror's Lease has a holder.
func leaseHeld(ctx context.Context, client *kube.Client) (bool, error) {
	l := &kube.Lease{}
	err := client.Get(ctx, kube.Key{Namespace: "default", Name: mirror.LeaseName}, l)
	if kube.IsNotFound(err) {
		return false, nil
	}
	return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", err
}

// reconcileMetric scrapes the metrics endpoint and returns the line that
// counts the Secret mirror's successful reconciles.
func reconcileMetric(ctx context.Context, addr string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("scrape metrics: %w", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "controller_runtime_reconcile_total{") &&
			strings.Contains(line, `controller="mirror-secret"`) && strings.Contains(line, `result="success"`) {
			return line, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("scrape metrics: %w", err)
	}
	return "", fmt.Errorf("scrape metrics: no controller_runtime_reconcile_total for controller mirror-secret (status %s)", resp.Status)
}

// freeLoopbackAddr returns a loopback address with a port free a moment
// ago, for the metrics server.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port for the metrics: %w", err)
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
