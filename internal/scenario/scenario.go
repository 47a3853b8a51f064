// SPDX-License-Identifier: Apache-2.0

// Package scenario holds the wire scenarios that kubeloop's client must get
// right against any API server. The same code runs against kube/kubetest in
// `go test ./...` and against a real kube-apiserver in the integration suite
// (internal/integration): where the two disagree, the real server is right
// and the fake is fixed.
//
// Every scenario works in a namespace of its own, so runs do not disturb
// each other and a real server can be reused.
package scenario

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Env is the server under test.
type Env struct {
	// Config reaches the server as a user allowed everything.
	Config *kube.Config
	// DeniedConfig reaches it as a user that authorization denies.
	DeniedConfig *kube.Config
	// Compact makes the server forget history up to now, so that reads at
	// older resourceVersions answer 410. On a real server it waits for
	// etcd's compaction; it returns when a list at rv is refused.
	Compact func(ctx context.Context, t *testing.T, c *kube.Client, rv string)
	// LagWatches, when set, makes the watches of the clients made from
	// the config it returns deliver each event a random time in [least,
	// most] after it happened, keeping their order and sending no
	// bookmark ahead of the events before it, until undo is called.
	// Lists, gets and writes are not delayed. On kubetest it is the
	// server's fault and cfg is Config; on a real server cfg goes through
	// a slow proxy, so only the scenario that asked for the lag sees it.
	LagWatches func(least, most time.Duration) (cfg *kube.Config, undo func())
	// Wait bounds how long a scenario waits for the server to act on its
	// own (a CRD to be served, compaction): short for the fake, longer for a
	// real server.
	Wait time.Duration
	// Controllers says a garbage collector and a namespace controller run
	// beside the server (kube-controller-manager's, or kubetest's own);
	// the scenarios that need them skip without.
	Controllers bool
	// ControllersSettled says the controllers' work is done when the write
	// that set it off returns, as kubetest promises: the scenarios then
	// check once instead of polling within Wait.
	ControllersSettled bool
	// Bubble, when set, runs f inside a testing/synctest bubble, with an
	// Env of a server made in that bubble (kubetest on its in-process
	// transport): the scenarios that wait on real time (FreshReads,
	// whose watch events come 0.2 to 2 s late, InformerAfterCuts and
	// ShardedManagers: see waitsOnRealTime) run there in fake time, with
	// the same checks. f does not call t.Run. Without it (a real server)
	// they wait in real time.
	Bubble func(t *testing.T, f func(t *testing.T, env Env))
	// Version is the Kubernetes version the server is, 1.MINOR.PATCH
	// (a real server's build, or the one kubetest acts as); empty: what
	// its /version says. The scenarios whose answers differ between the
	// minors kubeloop supports (1.33 to 1.37) choose their expectations
	// by its minor, and Version checks /version against it.
	Version string
}

// Run runs every scenario as a subtest of t.
func Run(t *testing.T, env Env) {
	for _, s := range scenarios() {
		s.runIn(t, env)
	}
}

// RunByMinor runs the scenarios whose expectations differ by the
// server's minor (choosesByMinor; Run fails a scenario that asks the
// server's version without being named there), each as a subtest of t:
// what a server acting as another minor must be checked with.
func RunByMinor(t *testing.T, env Env) {
	for _, s := range scenarios() {
		if choosesByMinor(s.name) {
			s.runIn(t, env)
		}
	}
}

// namedScenario is one scenario of Run.
type namedScenario struct {
	name string
	run  func(*testing.T, *fixture)
}

// scenarios returns every scenario, in the order Run runs them.
func scenarios() []namedScenario {
	return []namedScenario{
		{"CRUD", testCRUD},
		{"GenerateName", testGenerateName},
		{"Invalid", testInvalid},
		{"MissingNamespace", testMissingNamespace},
		{"Finalizers", testFinalizers},
		{"DeleteBumpsGeneration", testDeleteBumpsGeneration},
		{"RemoveLastFinalizer", testRemoveLastFinalizer},
		{"DeletePreconditions", testDeletePreconditions},
		{"DeleteAllOf", testDeleteAllOf},
		{"Paging", testPaging},
		{"Selectors", testSelectors},
		{"PartialObjectMetadata", testPartialObjectMetadata},
		{"PartialUpdate", testPartialUpdate},
		{"Patches", testPatches},
		{"Apply", testApply},
		{"ApplyListTypes", testApplyListTypes},
		{"ApplyConditions", testApplyConditions},
		{"ApplyBuiltinLists", testApplyBuiltinLists},
		{"ApplyControllers", testApplyControllers},
		{"ManagedFieldsWrites", testManagedFieldsWrites},
		{"ManagedFieldsCap", testManagedFieldsCap},
		{"KubectlMigration", testKubectlMigration},
		{"StrategicMerge", testStrategicMerge},
		{"Watch", testWatch},
		{"WatchSelectorLeaves", testWatchSelectorLeaves},
		{"WatchList", testWatchList},
		{"Gone", testGone},
		{"CustomResource", testCustomResource},
		{"CRDDeleted", testCRDDeleted},
		{"Forbidden", testForbidden},
		{"Lease", testLease},
		{"Event", testEvent},
		{"EventsOneStorage", testEventsOneStorage},
		{"EventValidation", testEventValidation},
		{"DryRun", testDryRun},
		{"WriteOptions", testWriteOptions},
		{"Immutable", testImmutable},
		{"SecretAndConfigMapData", testSecretAndConfigMapData},
		{"Defaults", testDefaults},
		{"NamespaceDeleteOptions", testNamespaceDeleteOptions},
		{"GCNamespacedOwnerOfClusterScoped", testGCNamespacedOwnerOfClusterScoped},
		{"WorkloadKinds", testWorkloadKinds},
		{"InformerAfterCuts", testInformerAfterCuts},
		{"TableProtocol", testTableProtocol},
		{"TableBuiltins", testTableBuiltins},
		{"TableCustomResource", testTableCustomResource},
		{"FieldValidation", testFieldValidation},
		{"BuiltinTypeErrors", testBuiltinTypeErrors},
		{"CustomResourceValidation", testCustomResourceValidation},
		{"CustomResourceDefaultsAndPruning", testCustomResourceDefaultsAndPruning},
		{"ForgedKeys", testForgedKeys},
		{"CustomResourceRatcheting", testCustomResourceRatcheting},
		{"CRDFromGoTypes", testCRDFromGoTypes},
		{"CRDInstaller", testCRDInstaller},
		{"NonStructuralCRD", testNonStructuralCRD},
		{"OpenAPI", testOpenAPI},
		{"ShardedList", testShardedList},
		{"ShardedWatch", testShardedWatch},
		{"ShardedMalformed", testShardedMalformed},
		{"ShardedInformer", testShardedInformer},
		{"ShardedRanges", testShardedRanges},
		{"ShardedManagers", testShardedManagers},
		{"ShardedOwned", testShardedOwned},
		{"FreshReads", testFreshReads},
		{"FreshFinalizer", testFreshFinalizer},
		{"WrittenAnswers", testWrittenAnswers},
		{"Scope", testScope},
		{"OwnerIndex", testOwnerIndex},
		{"CacheOptions", testCacheOptions},
		{"WatchErrorHandler", testWatchErrorHandler},
		{"ProtobufDeleteOptions", testProtobufDeleteOptions},
		{"ProtobufObjects", testProtobufObjects},
		{"ProtobufUpdates", testProtobufUpdates},
		{"AccessReview", testAccessReview},
		{"MetricsAuth", testMetricsAuth},
		{"SelfReviews", testSelfReviews},
		{"ServiceDefaults", testServiceDefaults},
		{"PodLog", testPodLog},
		{"PodSubresources", testPodSubresources},
		{"Scale", testScale},
		{"ScaleCustomResource", testScaleCustomResource},
		{"SubResources", testSubResources},
		{"EvictionBudget", testEvictionBudget},
		{"UnknownPaths", testUnknownPaths},
		{"Version", testVersion},
		{"MalformedResourceVersion", testMalformedResourceVersion},
		{"FieldSelectors", testFieldSelectors},
		{"StartingObjects", testStartingObjects},
		{"QuotaAndLimitRange", testQuotaAndLimitRange},
		{"NamespaceLifecycle", testNamespaceLifecycle},
		{"NamespaceFinalize", testNamespaceFinalize},
		{"NamespacePodsFirst", testNamespacePodsFirst},
		{"GarbageCollectionBackground", testGCBackground},
		{"GarbageCollectionForeground", testGCForeground},
		{"GarbageCollectionForegroundChain", testGCForegroundChain},
		{"GarbageCollectionForegroundCycle", testGCForegroundCycle},
		{"GarbageCollectionOrphan", testGCOrphan},
		{"GarbageCollectionDangling", testGCDangling},
		{"GarbageCollectionClusterScopedOwner", testGCClusterScopedOwner},
		{"GarbageCollectionOwnerInOtherNamespace", testGCOwnerInOtherNamespace},
		{"GarbageCollectionCustomResource", testGCCustomResource},
		{"DeleteOptionsValidation", testDeleteOptionsValidation},
		{"OwnerReferenceValidation", testOwnerReferenceValidation},
		{"WriteValidation", testWriteValidation},
		{"StatusMetadata", testStatusMetadata},
		{"PodBinding", testPodBinding},
		{"CSRApproval", testCSRApproval},
		{"TokenRequest", testTokenRequest},
		{"AdmissionWebhooks", testAdmissionWebhooks},
		{"AdmissionWebhookOrder", testAdmissionWebhookOrder},
		{"ConversionWebhook", testConversionWebhook},
	}
}

// runIn runs the scenario as a subtest of t, in env's bubble when it
// waits on real time.
func (s namedScenario) runIn(t *testing.T, env Env) {
	t.Run(s.name, func(t *testing.T) {
		if env.Bubble != nil && waitsOnRealTime(s.name) {
			env.Bubble(t, s.runFixture)
			return
		}
		s.runFixture(t, env)
	})
}

// runFixture runs the scenario on a fixture of env, and fails it if it
// asked the server's version without being named by choosesByMinor
// (RunByMinor would leave it out).
func (s namedScenario) runFixture(t *testing.T, env Env) {
	f := newFixture(t, env)
	s.run(t, f)
	if f.versionAsked && !choosesByMinor(s.name) {
		t.Errorf("scenario %s chooses by the server's version: name it in choosesByMinor", s.name)
	}
}

// choosesByMinor reports whether the scenario named name chooses what it
// expects by the server's minor (it asks the fixture's version).
func choosesByMinor(name string) bool {
	switch name {
	case "TableBuiltins", "TableCustomResource", "BuiltinTypeErrors", "CustomResourceValidation",
		"CRDFromGoTypes", "ShardedList", "ShardedWatch", "ShardedMalformed", "ShardedInformer",
		"ShardedRanges", "AccessReview", "SelfReviews", "Version", "OwnerReferenceValidation",
		"StatusMetadata", "CSRApproval", "TokenRequest", "ConversionWebhook", "PodSubresources":
		return true
	}
	return false
}

// waitsOnRealTime reports whether the scenario named name runs in
// [Env.Bubble] when there is one: it waits on timers (a reflector's
// backoff after its watch is cut, Lease periods, reconciles that sleep)
// and calls no t.Run. FreshReads, which does, uses the bubble itself.
func waitsOnRealTime(name string) bool {
	switch name {
	case "InformerAfterCuts", "ShardedManagers":
		return true
	}
	return false
}

// fixture is one scenario's client, context and namespace.
type fixture struct {
	env Env
	ctx context.Context
	c   *kube.Client
	ns  string
	// versionAsked says the scenario asked the server's version.
	versionAsked bool
}

func newFixture(t *testing.T, env Env) *fixture {
	t.Helper()
	wait := env.Wait
	if wait == 0 {
		wait = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait+time.Minute)
	t.Cleanup(cancel)
	c, err := kube.NewClient(env.Config, kube.ClientOptions{FieldManager: "kubeloop-scenario"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{env: env, ctx: ctx, c: c, ns: "sc-" + randomSuffix()}
	ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: f.ns}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		// A real server without kube-controller-manager keeps the
		// namespace Terminating; that is fine for a throwaway server.
		_ = c.Delete(context.Background(), ns)
	})
	f.env.Wait = wait
	return f
}

func randomSuffix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// configMap returns a ConfigMap in the fixture's namespace.
func (f *fixture) configMap(name string, labels map[string]string, data map[string]string) *kube.ConfigMap {
	return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels}, Data: data}
}

func (f *fixture) mustCreate(t *testing.T, obj kube.Object) {
	t.Helper()
	if err := f.c.Create(f.ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
}

// settled checks what the controllers do on their own: once when the
// environment promises they are done by the time a write returns
// (kubetest), else as eventually does.
func (f *fixture) settled(t *testing.T, what string, check func() error) {
	t.Helper()
	if f.env.ControllersSettled {
		if err := check(); err != nil {
			t.Fatalf("%s: not done when the write returned: %v", what, err)
		}
		return
	}
	f.eventually(t, what, check)
}

// needControllers skips a scenario that needs a garbage collector and a
// namespace controller when none runs.
func (f *fixture) needControllers(t *testing.T) {
	t.Helper()
	if !f.env.Controllers {
		t.Skip("no garbage collector or namespace controller runs beside this server")
	}
}

// eventually calls check until it returns nil or the fixture's wait is
// over, then fails with check's last error. Only for what a server does on
// its own time (serving a new CRD, compacting); never for the client's own
// results.
// run runs start (an informer's, a cache's or a manager's Start) in a
// goroutine of its own until the stop it returns is called, which cancels
// start's context, waits for it to return and reports what it returned
// as an error of what.
func (f *fixture) run(t *testing.T, what string, start func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() { done <- start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s Start = %v", what, err)
		}
	}
}

func (f *fixture) eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(f.env.Wait)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, f.env.Wait, err)
		}
		select {
		case <-f.ctx.Done():
			t.Fatalf("%s: %v (last: %v)", what, f.ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
