// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/yaml"
)

// kubeconfig is what LoadConfig reads from one or more kubeconfig files:
// the named clusters, users and contexts, merged as kubectl merges them (the
// first file to define a name wins, and so does the first current-context).
// Relative paths are already resolved against the directory of the file
// that holds them.
type kubeconfig struct {
	files          []string // the files read, in order
	currentContext string
	clusters       map[string]*kubeCluster
	users          map[string]*kubeUser
	contexts       map[string]*kubeContext
}

// where locates a named entry for error messages.
type where struct {
	file string
	line int
}

// at locates w for an error about k: "line N", with the file first when k
// merges several files (the error already names them all).
func (k *kubeconfig) at(w where) string {
	if len(k.files) > 1 {
		return fmt.Sprintf("%s: line %d", w.file, w.line)
	}
	return fmt.Sprintf("line %d", w.line)
}

// kubeCluster is clusters[].cluster.
type kubeCluster struct {
	where
	server, caFile, serverName, proxyURL string
	caData                               []byte
	insecure                             bool
}

// kubeUser is users[].user.
type kubeUser struct {
	where
	token, tokenFile, certFile, keyFile, username, password string
	certData, keyData                                       []byte
	exec                                                    *ExecConfig
	// unsupported names a field kubeloop cannot honour (auth-provider,
	// impersonation): using this user is an error.
	unsupported string
}

// kubeContext is contexts[].context.
type kubeContext struct {
	where
	cluster, user, namespace string
}

func newKubeconfig() *kubeconfig {
	return &kubeconfig{
		clusters: make(map[string]*kubeCluster),
		users:    make(map[string]*kubeUser),
		contexts: make(map[string]*kubeContext),
	}
}

// add decodes the kubeconfig file at path (absolute) with contents data and
// merges it into k: names k already has keep their first definition.
func (k *kubeconfig) add(path string, data []byte) error {
	root, err := yaml.ParseNode(data)
	if err != nil {
		return err
	}
	d := kubeDecoder{dir: filepath.Dir(path), file: path}
	k.files = append(k.files, path)
	if root.Kind == yaml.Null {
		return nil // an empty file is an empty kubeconfig, as for kubectl
	}
	if err := d.want(root, yaml.Mapping, "the document"); err != nil {
		return err
	}
	cur, err := d.str(root.Get("current-context"), "current-context")
	if err != nil {
		return err
	}
	if k.currentContext == "" {
		k.currentContext = cur
	}
	err = d.named(root, "clusters", "cluster", func(name string, at where, n *yaml.Node, field string) error {
		c, err := d.cluster(n, field)
		if err == nil && k.clusters[name] == nil {
			c.where = at
			k.clusters[name] = c
		}
		return err
	})
	if err != nil {
		return err
	}
	err = d.named(root, "users", "user", func(name string, at where, n *yaml.Node, field string) error {
		u, err := d.user(n, field)
		if err == nil && k.users[name] == nil {
			u.where = at
			k.users[name] = u
		}
		return err
	})
	if err != nil {
		return err
	}
	return d.named(root, "contexts", "context", func(name string, at where, n *yaml.Node, field string) error {
		c := &kubeContext{where: at}
		var err error
		if c.cluster, err = d.str(n.Get("cluster"), field+".cluster"); err != nil {
			return err
		}
		if c.user, err = d.str(n.Get("user"), field+".user"); err != nil {
			return err
		}
		if c.namespace, err = d.str(n.Get("namespace"), field+".namespace"); err != nil {
			return err
		}
		if k.contexts[name] == nil {
			k.contexts[name] = c
		}
		return nil
	})
}

// cluster decodes the body of clusters[].cluster.
func (d kubeDecoder) cluster(n *yaml.Node, field string) (*kubeCluster, error) {
	c := &kubeCluster{}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{
		{"server", &c.server},
		{"certificate-authority", &c.caFile},
		{"tls-server-name", &c.serverName},
		{"proxy-url", &c.proxyURL},
	} {
		if *s.dst, err = d.str(n.Get(s.key), field+"."+s.key); err != nil {
			return nil, err
		}
	}
	c.caFile = d.path(c.caFile)
	if c.caData, err = d.data(n.Get("certificate-authority-data"), field+".certificate-authority-data"); err != nil {
		return nil, err
	}
	if c.insecure, err = d.boolean(n.Get("insecure-skip-tls-verify"), field+".insecure-skip-tls-verify"); err != nil {
		return nil, err
	}
	return c, nil
}

// user decodes the body of users[].user.
func (d kubeDecoder) user(n *yaml.Node, field string) (*kubeUser, error) {
	u := &kubeUser{}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{
		{"token", &u.token},
		{"tokenFile", &u.tokenFile},
		{"client-certificate", &u.certFile},
		{"client-key", &u.keyFile},
		{"username", &u.username},
		{"password", &u.password},
	} {
		if *s.dst, err = d.str(n.Get(s.key), field+"."+s.key); err != nil {
			return nil, err
		}
	}
	u.tokenFile, u.certFile, u.keyFile = d.path(u.tokenFile), d.path(u.certFile), d.path(u.keyFile)
	if u.certData, err = d.data(n.Get("client-certificate-data"), field+".client-certificate-data"); err != nil {
		return nil, err
	}
	if u.keyData, err = d.data(n.Get("client-key-data"), field+".client-key-data"); err != nil {
		return nil, err
	}
	for _, key := range []string{"auth-provider", "as", "as-uid", "as-groups", "as-user-extra"} {
		if v := n.Get(key); v != nil && v.Kind != yaml.Null {
			u.unsupported = key
			break
		}
	}
	if e := n.Get("exec"); e != nil && e.Kind != yaml.Null {
		if u.exec, err = d.exec(e, field+".exec"); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// exec decodes users[].user.exec.
func (d kubeDecoder) exec(n *yaml.Node, field string) (*ExecConfig, error) {
	if err := d.want(n, yaml.Mapping, field); err != nil {
		return nil, err
	}
	e := &ExecConfig{}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{
		{"command", &e.Command},
		{"apiVersion", &e.APIVersion},
		{"installHint", &e.InstallHint},
		{"interactiveMode", &e.InteractiveMode},
	} {
		if *s.dst, err = d.str(n.Get(s.key), field+"."+s.key); err != nil {
			return nil, err
		}
	}
	if e.Command == "" {
		return nil, d.errorf(n, "%s.command: missing", field)
	}
	if strings.ContainsRune(e.Command, filepath.Separator) || strings.ContainsRune(e.Command, '/') {
		e.Command = d.path(e.Command) // a path, not a name to look up in PATH
	}
	if e.ProvideClusterInfo, err = d.boolean(n.Get("provideClusterInfo"), field+".provideClusterInfo"); err != nil {
		return nil, err
	}
	args, err := d.list(n.Get("args"), field+".args")
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		s, err := d.str(a, fmt.Sprintf("%s.args[%d]", field, i))
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, s)
	}
	env, err := d.list(n.Get("env"), field+".env")
	if err != nil {
		return nil, err
	}
	for i, v := range env {
		f := fmt.Sprintf("%s.env[%d]", field, i)
		if err := d.want(v, yaml.Mapping, f); err != nil {
			return nil, err
		}
		var ev ExecEnvVar
		if ev.Name, err = d.str(v.Get("name"), f+".name"); err != nil {
			return nil, err
		}
		if ev.Value, err = d.str(v.Get("value"), f+".value"); err != nil {
			return nil, err
		}
		if ev.Name == "" {
			return nil, d.errorf(v, "%s.name: missing", f)
		}
		e.Env = append(e.Env, ev)
	}
	return e, nil
}

// kubeDecoder turns yaml nodes into kubeconfig fields; its errors name the
// line and the field ("line 7: clusters[0].cluster: expected a mapping,
// found a sequence"). They never quote a value: it may be a secret.
type kubeDecoder struct {
	file string // the file being read
	dir  string // its directory, for relative paths
}

func (d kubeDecoder) errorf(n *yaml.Node, format string, args ...any) error {
	return errs.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, args...))
}

// want checks the kind of a node that must be there.
func (d kubeDecoder) want(n *yaml.Node, k yaml.Kind, field string) error {
	if n.Kind != k {
		return d.errorf(n, "%s: expected %s, found %s", field, article(k), article(n.Kind))
	}
	return nil
}

// article names a kind with its article, for messages.
func article(k yaml.Kind) string {
	if k == yaml.Null {
		return "nothing"
	}
	return "a " + k.String()
}

// named walks a list of named entries ("clusters", each with "name" and
// the body under inner) and calls f with each name and body; a null body is
// an empty mapping.
func (d kubeDecoder) named(root *yaml.Node, list, inner string, f func(name string, at where, body *yaml.Node, field string) error) error {
	items, err := d.list(root.Get(list), list)
	if err != nil {
		return err
	}
	for i, it := range items {
		field := fmt.Sprintf("%s[%d]", list, i)
		if err := d.want(it, yaml.Mapping, field); err != nil {
			return err
		}
		name, err := d.str(it.Get("name"), field+".name")
		if err != nil {
			return err
		}
		if name == "" {
			return d.errorf(it, "%s: missing name", field)
		}
		body := it.Get(inner)
		if body == nil || body.Kind == yaml.Null {
			body = &yaml.Node{Kind: yaml.Mapping, Line: it.Line, Column: it.Column}
		}
		if err := d.want(body, yaml.Mapping, field+"."+inner); err != nil {
			return err
		}
		if err := f(name, where{file: d.file, line: it.Line}, body, field+"."+inner); err != nil {
			return err
		}
	}
	return nil
}

// list returns the items of a sequence; absent or null is empty.
func (d kubeDecoder) list(n *yaml.Node, field string) ([]*yaml.Node, error) {
	if n == nil || n.Kind == yaml.Null {
		return nil, nil
	}
	if err := d.want(n, yaml.Sequence, field); err != nil {
		return nil, err
	}
	return n.Items, nil
}

// str returns a scalar; absent or null is "".
func (d kubeDecoder) str(n *yaml.Node, field string) (string, error) {
	if n == nil || n.Kind == yaml.Null {
		return "", nil
	}
	if err := d.want(n, yaml.Scalar, field); err != nil {
		return "", err
	}
	return n.Text, nil
}

// boolean reads true or false (and the YAML 1.1 spellings kubectl accepts:
// yes, no, on, off); absent or null is false.
func (d kubeDecoder) boolean(n *yaml.Node, field string) (bool, error) {
	s, err := d.str(n, field)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "", "false", "no", "off", "n":
		return false, nil
	case "true", "yes", "on", "y":
		return true, nil
	}
	return false, d.errorf(n, "%s: expected true or false, found %q", field, s)
}

// data decodes base64 (standard encoding; line breaks and spaces ignored).
func (d kubeDecoder) data(n *yaml.Node, field string) ([]byte, error) {
	s, err := d.str(n, field)
	if err != nil || s == "" {
		return nil, err
	}
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, d.errorf(n, "%s: invalid base64 data", field)
	}
	return b, nil
}

// path resolves p against the directory of the kubeconfig file.
func (d kubeDecoder) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, p)
}
