// SPDX-License-Identifier: Apache-2.0

package clientgo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSubresourcesProtobuf runs the subresources whose kind is not their
// resource's through client-go's typed clients, in protobuf: scale
// (autoscaling/v1 Scale) of the four scalable kinds, pods/eviction
// (policy/v1 Eviction), pods/binding and bindings (Binding),
// serviceaccounts/token (TokenRequest), certificatesigningrequests/approval,
// namespaces/finalize and pods/ephemeralcontainers.
func TestSubresourcesProtobuf(t *testing.T) {
	var names []string
	var tallies []*tally
	for _, srv := range servers(t) {
		tl := newTally(srv)
		names, tallies = append(names, srv.name), append(tallies, tl)
		t.Run(srv.name, func(t *testing.T) {
			defer tl.report(t, srv.name)
			k := newKit(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			k.scales(ctx, t, tl)
			k.podSubresources(ctx, t, tl)
			k.token(ctx, t, tl)
			k.approval(ctx, t, tl)
			k.finalize(ctx, t, tl)
		})
	}
	compare(t, names, tallies)
}

// create makes a fixture of kind (by its JSON) and fails the test when
// it cannot.
func (k *kit) create(ctx context.Context, t *testing.T, js string) string {
	t.Helper()
	obj, gvk := k.object(t, js)
	res, _, ok := k.resource(gvk)
	if !ok {
		t.Fatalf("%s not served", gvk)
	}
	err := k.rest(t, gvk.GroupVersion()).Post().UseProtobufAsDefault().NamespaceIfScoped(k.ns, res.Namespaced).
		Resource(res.Name).Body(obj).Do(ctx).Error()
	if err != nil {
		t.Fatalf("create %s: %v", gvk.Kind, err)
	}
	return obj.(metav1.Object).GetName()
}

func (k *kit) scales(ctx context.Context, t *testing.T, tl *tally) {
	apps := k.cs.AppsV1()
	for _, js := range []string{fixtureOf(t, "Deployment"), fixtureOf(t, "ReplicaSet"), fixtureOf(t, "StatefulSet"), fixtureOf(t, "ReplicationController")} {
		_, gvk := k.object(t, js)
		name := k.create(ctx, t, js)
		step := gvk.Kind + " scale"
		var err error
		switch gvk.Kind {
		case "Deployment":
			err = scaleTo(ctx, k, name, apps.Deployments(k.ns).GetScale, apps.Deployments(k.ns).UpdateScale)
		case "ReplicaSet":
			err = scaleTo(ctx, k, name, apps.ReplicaSets(k.ns).GetScale, apps.ReplicaSets(k.ns).UpdateScale)
		case "StatefulSet":
			err = scaleTo(ctx, k, name, apps.StatefulSets(k.ns).GetScale, apps.StatefulSets(k.ns).UpdateScale)
		case "ReplicationController":
			err = scaleTo(ctx, k, name, k.cs.CoreV1().ReplicationControllers(k.ns).GetScale, k.cs.CoreV1().ReplicationControllers(k.ns).UpdateScale)
		}
		tl.record(t, step, err)
	}
	d, err := apps.Deployments(k.ns).Get(ctx, "p-deployment-"+k.sfx, metav1.GetOptions{})
	if err == nil && (d.Spec.Replicas == nil || *d.Spec.Replicas != 3) {
		err = fmt.Errorf("replicas after the scale: %v", d.Spec.Replicas)
	}
	tl.record(t, "Deployment replicas read back", err)
}

// scaleTo reads a Scale and writes 3 replicas, both in protobuf.
func scaleTo(ctx context.Context, k *kit, name string,
	get func(context.Context, string, metav1.GetOptions) (*autoscalingv1.Scale, error),
	update func(context.Context, string, *autoscalingv1.Scale, metav1.UpdateOptions) (*autoscalingv1.Scale, error)) error {
	sc, err := get(ctx, name, metav1.GetOptions{})
	if err = k.spoke(err, false); err != nil {
		return fmt.Errorf("get: %w", err)
	}
	sc.Spec.Replicas = 3
	out, err := update(ctx, name, sc, metav1.UpdateOptions{})
	if err = k.spoke(err, true); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if out.Spec.Replicas != 3 {
		return fmt.Errorf("update answered %d replicas", out.Spec.Replicas)
	}
	return nil
}

func (k *kit) podSubresources(ctx context.Context, t *testing.T, tl *tally) {
	pods := k.cs.CoreV1().Pods(k.ns)
	pod := func(name string) string {
		js := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
		name = k.create(ctx, t, js)
		t.Cleanup(func() { // a bound pod waits for a kubelet the harness has not
			grace := int64(0)
			_ = pods.Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
		})
		return name
	}
	// pods/binding
	name := pod("bind-" + k.sfx)
	err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-" + k.sfx}}, metav1.CreateOptions{})
	if err = k.spoke(err, true); err == nil {
		var p *corev1.Pod
		if p, err = pods.Get(ctx, name, metav1.GetOptions{}); err == nil && p.Spec.NodeName != "node-"+k.sfx {
			err = fmt.Errorf("nodeName after the binding: %q", p.Spec.NodeName)
		}
	}
	tl.record(t, "pods/binding", err)
	// bindings, the resource
	name = pod("bindings-" + k.sfx)
	err = k.cs.CoreV1().RESTClient().Post().UseProtobufAsDefault().Namespace(k.ns).Resource("bindings").
		Body(&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: "n"}}).
		Do(ctx).Error()
	tl.record(t, "bindings", k.spoke(err, true))
	// pods/eviction
	name = pod("evict-" + k.sfx)
	err = pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: k.ns}})
	if err = k.spoke(err, true); err == nil {
		if _, err = pods.Get(ctx, name, metav1.GetOptions{}); err == nil {
			err = fmt.Errorf("the pod is still there after its eviction")
		} else {
			err = nil
		}
	}
	tl.record(t, "pods/eviction", err)
	// pods/ephemeralcontainers
	name = pod("ephemeral-" + k.sfx)
	p, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{
			EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}})
		p, err = pods.UpdateEphemeralContainers(ctx, name, p, metav1.UpdateOptions{})
		if err = k.spoke(err, true); err == nil && len(p.Spec.EphemeralContainers) != 1 {
			err = fmt.Errorf("ephemeral containers after the update: %d", len(p.Spec.EphemeralContainers))
		}
	}
	tl.record(t, "pods/ephemeralcontainers", err)
}

func (k *kit) token(ctx context.Context, t *testing.T, tl *tally) {
	sa := k.create(ctx, t, `{"apiVersion":"v1","kind":"ServiceAccount"}`)
	exp := int64(3600)
	tr, err := k.cs.CoreV1().ServiceAccounts(k.ns).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err = k.spoke(err, true); err == nil && (tr.Status.Token == "" || tr.Status.ExpirationTimestamp.IsZero()) {
		err = fmt.Errorf("token request answered %+v", tr.Status)
	}
	tl.record(t, "serviceaccounts/token", err)
}

func (k *kit) approval(ctx context.Context, t *testing.T, tl *tally) {
	name := k.create(ctx, t, fixtureOf(t, "CertificateSigningRequest"))
	csrs := k.cs.CertificatesV1().CertificateSigningRequests()
	defer func() { _ = csrs.Delete(context.Background(), name, metav1.DeleteOptions{}) }()
	csr, err := csrs.Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by the test"})
		csr, err = csrs.UpdateApproval(ctx, name, csr, metav1.UpdateOptions{})
		if err = k.spoke(err, true); err == nil && len(csr.Status.Conditions) != 1 {
			err = fmt.Errorf("conditions after the approval: %v", csr.Status.Conditions)
		}
	}
	tl.record(t, "certificatesigningrequests/approval", err)
}

func (k *kit) finalize(ctx context.Context, t *testing.T, tl *tally) {
	nss := k.cs.CoreV1().Namespaces()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "clientgo-fin-" + k.sfx}}, metav1.CreateOptions{})
	if err == nil {
		defer func() { // a namespace finalized before its delete stays Terminating until a second one
			_ = nss.Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
			_ = nss.Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		}()
		ns.Spec.Finalizers = nil
		ns, err = nss.Finalize(ctx, ns, metav1.UpdateOptions{})
		if err = k.spoke(err, true); err == nil && len(ns.Spec.Finalizers) != 0 {
			err = fmt.Errorf("finalizers after finalize: %v", ns.Spec.Finalizers)
		}
	}
	tl.record(t, "namespaces/finalize", err)
}

// fixtureOf is the fixture of kind.
func fixtureOf(t *testing.T, kind string) string {
	for _, js := range fixtures {
		if strings.Contains(js, `"kind":"`+kind+`"`) {
			return js
		}
	}
	t.Fatalf("no fixture of %s", kind)
	return ""
}
