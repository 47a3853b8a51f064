// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// LoadOptions say where [LoadConfig] looks. The zero value searches as
// kubectl and controller-runtime do.
type LoadOptions struct {
	// Path is a kubeconfig file to read (what a --kubeconfig flag names).
	// When set, nothing else is tried.
	Path string
	// Context is the kubeconfig context to use instead of the file's
	// current-context (what a --context flag names). When set, the
	// in-cluster configuration is not tried: a context only exists in a
	// kubeconfig file.
	Context string
}

// LoadConfig finds and reads the configuration of the API server to talk
// to. It tries, in order, and uses the first that exists:
//
//  1. opts.Path;
//  2. the files listed in $KUBECONFIG (joined by [os.PathListSeparator]),
//     merged as kubectl merges them: for clusters, users and contexts the
//     first file that defines a name wins, and so does the first
//     current-context; files that do not exist are skipped;
//  3. the in-cluster configuration, as [InClusterConfig] reads it, unless
//     opts.Context is set;
//  4. $HOME/.kube/config.
//
// From a kubeconfig it uses opts.Context or the current-context, with its
// cluster, user and namespace. Relative paths in a file are resolved against
// that file's directory; *-data fields are base64. Errors name the file and,
// when a field is at fault, the line; they never quote a secret. Users with
// auth-provider or impersonation (as, as-groups) are refused rather than
// half-honoured.
//
// LoadConfig reads only the kubeconfig files (and the in-cluster token);
// certificate and token files are read by [Config.HTTPClient].
func LoadConfig(opts LoadOptions) (*Config, error) {
	return loadConfig(opts, osEnv())
}

// loadEnv is what loadConfig reads from the process, so tests can replace it.
type loadEnv struct {
	getenv func(string) string
	// home returns the user's home directory.
	home func() (string, error)
	// root is prefixed to the in-cluster service account paths ("/").
	root string
}

func osEnv() loadEnv {
	return loadEnv{getenv: os.Getenv, home: os.UserHomeDir, root: "/"}
}

// loadConfig is LoadConfig with the process environment passed in.
func loadConfig(opts LoadOptions, env loadEnv) (*Config, error) {
	if opts.Path != "" {
		return loadKubeconfig([]string{opts.Path}, opts.Context, false)
	}
	var tried []string
	if list := env.getenv("KUBECONFIG"); list != "" {
		return loadKubeconfig(filepath.SplitList(list), opts.Context, true)
	}
	tried = append(tried, "$KUBECONFIG (unset)")

	if opts.Context == "" {
		cfg, err := inClusterConfig(env.root, env.getenv)
		if err == nil {
			return cfg, nil
		}
		if errors.Is(err, ErrNotInCluster) {
			tried = append(tried, "in-cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset)")
		} else {
			tried = append(tried, err.Error())
		}
	}

	if home, err := env.home(); err != nil {
		tried = append(tried, fmt.Sprintf("~/.kube/config (%v)", err))
	} else {
		path := filepath.Join(home, ".kube", "config")
		if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return loadKubeconfig([]string{path}, opts.Context, false)
		}
		tried = append(tried, path+" (not found)")
	}
	return nil, errs.Errorf("load config: no configuration found: tried %s; set KUBECONFIG or pass a kubeconfig path",
		strings.Join(tried, ", "))
}

// loadKubeconfig reads and merges the kubeconfig files at paths and builds
// the Config of the named context (the current-context when empty). With
// skipMissing, files that do not exist are skipped (as for $KUBECONFIG),
// but at least one must exist.
func loadKubeconfig(paths []string, context string, skipMissing bool) (*Config, error) {
	k := newKubeconfig()
	var missing []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, errs.Errorf("load kubeconfig %s: %w", p, err)
		}
		if slices.Contains(k.files, abs) {
			continue
		}
		data, err := os.ReadFile(abs)
		if skipMissing && errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
			continue
		}
		if err != nil {
			return nil, errs.Errorf("load kubeconfig: %w", err)
		}
		if err := k.add(abs, data); err != nil {
			return nil, errs.Errorf("load kubeconfig %s: %w", abs, err)
		}
	}
	if len(k.files) == 0 {
		return nil, errs.Errorf("load kubeconfig: none of the files in KUBECONFIG exists (%s)", strings.Join(missing, ", "))
	}
	cfg, err := k.config(context)
	if err != nil {
		return nil, errs.Errorf("load kubeconfig %s: %w", strings.Join(k.files, ", "), err)
	}
	return cfg, nil
}

// config builds the Config of the named context, or of the current-context
// when name is empty.
func (k *kubeconfig) config(name string) (*Config, error) {
	if name == "" {
		name = k.currentContext
	}
	if name == "" {
		return nil, errors.New("no current-context is set and no context was given")
	}
	ctx := k.contexts[name]
	if ctx == nil {
		return nil, errs.Errorf("context %q not found", name)
	}
	if ctx.cluster == "" {
		return nil, errs.Errorf("%s: context %q names no cluster", k.at(ctx.where), name)
	}
	cl := k.clusters[ctx.cluster]
	if cl == nil {
		return nil, errs.Errorf("%s: context %q: cluster %q not found", k.at(ctx.where), name, ctx.cluster)
	}
	if cl.server == "" {
		return nil, errs.Errorf("%s: cluster %q has no server", k.at(cl.where), ctx.cluster)
	}
	cfg := &Config{
		Host:      cl.server,
		Namespace: ctx.namespace,
		ProxyURL:  cl.proxyURL,
		TLS: TLSConfig{
			Insecure:   cl.insecure,
			ServerName: cl.serverName,
			CAFile:     cl.caFile,
			CAData:     cl.caData,
		},
	}
	if ctx.user == "" {
		return cfg, nil
	}
	u := k.users[ctx.user]
	if u == nil {
		return nil, errs.Errorf("%s: context %q: user %q not found", k.at(ctx.where), name, ctx.user)
	}
	if u.unsupported != "" {
		return nil, errs.Errorf("%s: user %q: %s is not supported (use an exec credential plugin, a token or a client certificate)",
			k.at(u.where), ctx.user, u.unsupported)
	}
	cfg.BearerToken, cfg.BearerTokenFile = u.token, u.tokenFile
	cfg.Username, cfg.Password = u.username, u.password
	cfg.TLS.CertFile, cfg.TLS.CertData = u.certFile, u.certData
	cfg.TLS.KeyFile, cfg.TLS.KeyData = u.keyFile, u.keyData
	cfg.Exec = u.exec
	return cfg, nil
}

// ParseKubeconfig builds the Config of a kubeconfig held in memory (a
// Secret's data, say), of the named context or, when context is empty,
// of its current-context, as [LoadConfig] does for a file. Paths in it
// (certificate-authority, token-file, ...) are read as written, relative
// to the working directory; a kubeconfig kept outside a file should
// carry its certificates and tokens as data. Errors never quote a
// secret.
//
// It honours all a kubeconfig can say, as kubectl does: an exec plugin
// runs, the files it names are read, and so on. For a kubeconfig that
// someone other than the program's operator wrote (a Secret's), use
// [ParseKubeconfigWith], which refuses those by default.
func ParseKubeconfig(data []byte, context string) (*Config, error) {
	k := newKubeconfig()
	if err := k.add("kubeconfig", data); err != nil {
		return nil, errs.Errorf("parse kubeconfig: %w", err)
	}
	cfg, err := k.config(context)
	if err != nil {
		return nil, errs.Errorf("parse kubeconfig: %w", err)
	}
	return cfg, nil
}
