// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
	"github.com/kubeloop/kubeloop/kube"
)

// TestZeroValues: every exported type's zero value works or returns an
// error, and a typed nil is treated as nil (see internal/zerotest).
func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{
		Values: []any{
			new(Client), new(CounterVec), new(EventRecorder), new(GaugeVec), new(HistogramVec), new(Manager), new(MetricsCollectorFunc), new(RunnableFunc),
		},
		TypedNils: []any{(*kube.ConfigMap)(nil), (*kube.List[kube.ConfigMap])(nil), (*kube.Client)(nil), RunnableFunc(nil), MetricsCollectorFunc(nil), (*LeaderElectionOptions)(nil)},
	})
}

// TestNewTypedNilOptions: a typed nil in Options is nil, as a
// --leader-elect flag left off gives: New makes a manager without leader
// election, sharding or webhook server instead of panicking.
func TestNewTypedNilOptions(t *testing.T) {
	srv := newServer(t)
	var le *LeaderElectionOptions // the flag was not given
	var sh *ShardingOptions
	m, err := newManager(testConfig(srv), Options{
		MetricsBindAddress: "0", LeaderElection: le, Sharding: sh, WebhookServer: RunnableFunc(nil),
	}, "/nonexistent/namespace")
	if err != nil {
		t.Fatalf("New with typed nil options = %v, want a manager", err)
	}
	if m.election != nil || m.ring != nil {
		t.Errorf("New with typed nil options made an elector (%v) or a ring (%v), want neither", m.election != nil, m.ring != nil)
	}
	if err := m.Add(RunnableFunc(nil)); err == nil {
		t.Errorf("Add(RunnableFunc(nil)) = nil, want an error")
	}
}
