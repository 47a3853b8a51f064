// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
	"net/url"

	"github.com/kubeloop/kubeloop/internal/yaml"
)

// KubeconfigPolicy says which of a kubeconfig's powers over the process
// that uses it [ParseKubeconfigWith] honours. A kubeconfig is more than
// an address and a credential: it can make the process run a command,
// read its files and send what they hold to the server it names, talk
// to that server in the clear or without checking who it is, and send
// everything through a proxy. For a kubeconfig the program's operator
// gives (a flag, a file), that is as it should be. For one that comes
// from the API (a Secret anyone with write access to a namespace may
// write), it is code execution and a leak of the pod's own credentials.
//
// The zero value refuses all of them; each field allows one, by name.
// What is never refused: any server over https, with the CA, token,
// client certificate or basic auth the kubeconfig carries as data. A
// server at a loopback, link-local or private address is not refused
// either (a name may resolve to one anyway); refusing plain http keeps
// the usual metadata endpoints (http://169.254.169.254) out of reach.
// The environment's proxy (HTTP_PROXY, HTTPS_PROXY) is never used by a
// kubeloop client, whatever the policy: a Config's only proxy is its
// ProxyURL.
type KubeconfigPolicy struct {
	// AllowExec honours users[].user.exec: the credential plugin runs a
	// command of the kubeconfig's choice, in the process's environment
	// and with its privileges.
	AllowExec bool
	// AllowFiles honours the fields that name a file of the process:
	// users[].user.tokenFile (whose contents are sent to the server as a
	// bearer token: the pod's own service account token, say),
	// client-certificate, client-key and
	// clusters[].cluster.certificate-authority.
	AllowFiles bool
	// AllowInsecureHTTP honours a server whose scheme is http: requests
	// and credentials go in the clear.
	AllowInsecureHTTP bool
	// AllowInsecureSkipTLSVerify honours
	// clusters[].cluster.insecure-skip-tls-verify: the server's
	// certificate is not checked, so anyone on the path may answer.
	AllowInsecureSkipTLSVerify bool
	// AllowProxy honours clusters[].cluster.proxy-url: every request,
	// with its credentials, goes through a proxy of the kubeconfig's
	// choice.
	AllowProxy bool
}

// ParseKubeconfigWith is [ParseKubeconfig] for a kubeconfig the program
// does not trust: the context used (its cluster and user) may say only
// what p allows. A field p does not allow is an error that names it
// ("line 9: users[0].user.exec: refused: ..."), returned instead of the
// Config: no command runs and no file is read, or even looked at
// (parsing runs nothing and reads no file). Entries the context does
// not use are not checked. auth-provider and impersonation are refused
// as ParseKubeconfig refuses them.
func ParseKubeconfigWith(data []byte, context string, p KubeconfigPolicy) (*Config, error) {
	k := newKubeconfig()
	if err := k.add("kubeconfig", data); err != nil {
		return nil, fmt.Errorf("parse kubeconfig: %w", err)
	}
	cfg, err := k.config(context)
	if err == nil {
		err = p.check(k, data, context)
	}
	if err != nil {
		return nil, fmt.Errorf("parse kubeconfig: %w", err)
	}
	return cfg, nil
}

// check returns an error naming the first field of the cluster or user
// of context (k.config has built its Config from k, parsed from data)
// that p does not allow.
func (p KubeconfigPolicy) check(k *kubeconfig, data []byte, context string) error {
	if context == "" {
		context = k.currentContext
	}
	ctx := k.contexts[context]
	cl, u := k.clusters[ctx.cluster], k.users[ctx.user]
	// refused names the field key of the entry of kind ("cluster" or
	// "user") named name, found again in data: the first of that name,
	// the one k holds.
	refused := func(w where, kind, name, key, why, allow string) error {
		return fmt.Errorf("%s: %s.%s: refused: %s (KubeconfigPolicy.%s allows it)", k.at(w), entryField(data, kind, name), key, why, allow)
	}
	cluster := func(key, why, allow string) error { return refused(cl.where, "cluster", ctx.cluster, key, why, allow) }
	if srv, err := url.Parse(cl.server); err == nil && srv.Scheme == "http" && !p.AllowInsecureHTTP {
		return cluster("server", "plain http sends requests and credentials in the clear", "AllowInsecureHTTP")
	}
	if cl.insecure && !p.AllowInsecureSkipTLSVerify {
		return cluster("insecure-skip-tls-verify", "the server's certificate would not be checked", "AllowInsecureSkipTLSVerify")
	}
	if cl.proxyURL != "" && !p.AllowProxy {
		return cluster("proxy-url", "requests and credentials would go through a proxy", "AllowProxy")
	}
	if cl.caFile != "" && !p.AllowFiles {
		return cluster("certificate-authority", "names a file of this process (carry it in certificate-authority-data)", "AllowFiles")
	}
	if u == nil {
		return nil
	}
	if u.exec != nil && !p.AllowExec {
		return refused(u.where, "user", ctx.user, "exec", "a credential plugin runs a command in this process", "AllowExec")
	}
	for _, f := range []struct{ key, path, data string }{
		{"tokenFile", u.tokenFile, "token"},
		{"client-certificate", u.certFile, "client-certificate-data"},
		{"client-key", u.keyFile, "client-key-data"},
	} {
		if f.path != "" && !p.AllowFiles {
			return refused(u.where, "user", ctx.user, f.key, "names a file of this process (carry it in "+f.data+")", "AllowFiles")
		}
	}
	return nil
}

// entryField is the path of the body of the first entry named name in
// the list of kind ("cluster": clusters[2].cluster) of the kubeconfig
// data, which parses.
func entryField(data []byte, kind, name string) string {
	root, _ := yaml.ParseNode(data)
	if root != nil && root.Kind == yaml.Mapping {
		if list := root.Get(kind + "s"); list != nil && list.Kind == yaml.Sequence {
			for i, it := range list.Items {
				if n := it.Get("name"); n != nil && n.Kind == yaml.Scalar && n.Text == name {
					return fmt.Sprintf("%ss[%d].%s", kind, i, kind)
				}
			}
		}
	}
	return kind + " " + name
}
