// SPDX-License-Identifier: Apache-2.0

package crd_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
)

// A manager with an Installer starts its controllers (here, a runnable
// that lists Widgets through the cache) only once the CRD serves; an
// install that fails stops the manager with the error.
func TestInstallerInManager(t *testing.T) {
	for _, deny := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			srv := kubetest.New(kubetest.Options{})
			defer srv.Close()
			if deny {
				srv.Deny("*", "create", "customresourcedefinitions.apiextensions.k8s.io")
			}
			cfg := srv.Config()
			cfg.QPS = -1
			mgr, err := manager.New(cfg, manager.Options{MetricsBindAddress: "0"})
			if err != nil {
				t.Fatal(err)
			}
			if err := mgr.Add(crd.NewInstaller(mgr.APIClient(), widgetCRD(t, crd.Options{}))); err != nil {
				t.Fatal(err)
			}
			listed := make(chan error, 1)
			err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				var list kube.List[Widget]
				listed <- mgr.Client().List(ctx, &list, kube.InNamespace("default"))
				<-ctx.Done()
				return nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- mgr.Start(ctx) }()
			synctest.Wait()
			if deny {
				select {
				case err := <-done:
					if !kube.IsForbidden(err) {
						t.Errorf("Start with the install forbidden = %v, want the Forbidden error", err)
					}
				default:
					t.Error("Start with the install forbidden still runs")
				}
				if len(listed) != 0 {
					t.Error("a runnable started though the install failed")
				}
				cancel()
				return
			}
			select {
			case err := <-listed:
				if err != nil {
					t.Errorf("List Widgets from a runnable = %v, want the CRD served by then", err)
				}
			default:
				t.Error("the runnable has not started")
			}
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Start = %v", err)
			}
		})
	}
}

// An Installer given a logger says what it did to each CRD, by name:
// created then established; unchanged when started again with the same
// CRD; updated when the CRD changed.
func TestInstallerLogs(t *testing.T) {
	_, c := newClient(t)
	var got []string
	for _, def := range []*crd.CustomResourceDefinition{
		widgetCRD(t, crd.Options{}),
		widgetCRD(t, crd.Options{}),
		widgetCRD(t, crd.Options{ShortNames: []string{"wd"}}),
	} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == "rv" {
					return slog.Attr{}
				}
				return a
			}}))
		inst := crd.NewInstaller(c, def).WithLogger(log)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inst.Start(ctx) }()
		if err := inst.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimSpace(buf.String()))
	}
	want := []string{
		"level=INFO msg=\"created CRD\" crd=widgets.example.com\nlevel=INFO msg=\"CRD established\" crd=widgets.example.com",
		"level=INFO msg=\"unchanged CRD\" crd=widgets.example.com\nlevel=INFO msg=\"CRD established\" crd=widgets.example.com",
		"level=INFO msg=\"updated CRD\" crd=widgets.example.com\nlevel=INFO msg=\"CRD established\" crd=widgets.example.com",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("install %d logged:\n%s\nwant:\n%s", i+1, got[i], want[i])
		}
	}
}

// An Installer that says what it did, run as a manager would run it.
func ExampleInstaller_WithLogger() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "example"})
	if err != nil {
		panic(err)
	}
	def, err := crd.For(&Widget{}, crd.Options{})
	if err != nil {
		panic(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "rv" {
			return slog.Attr{}
		}
		return a
	}}))
	inst := crd.NewInstaller(c, def).WithLogger(log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inst.Start(ctx) }()
	if err := inst.WaitForSync(ctx); err != nil {
		panic(err)
	}
	cancel()
	<-done
	// Output:
	// level=INFO msg="created CRD" crd=widgets.example.com
	// level=INFO msg="CRD established" crd=widgets.example.com
}
