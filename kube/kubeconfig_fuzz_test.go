// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/yaml"
)

// A kubeconfig with every kind of secret in it, which TestKubeconfigSecrets
// checks and FuzzKubeconfig starts from in smaller pieces.
const fuzzKubeconfig = `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: c
  cluster:
    server: https://kube.example:6443
    certificate-authority-data: Y2EtYnl0ZXM=
contexts:
- name: c
  context: {cluster: c, user: u, namespace: ns}
users:
- name: u
  user:
    token: tokenSECRET123
    username: admin
    password: "passwordSECRET"
    client-key-data: a2V5U0VDUkVUYnl0ZXM=
- name: e
  user:
    exec:
      command: plugin
      args:
      - get-token
      - --token=argSECRET42
      env:
      - name: TOKEN
        value: 'envSECRETvalue'
`

// FuzzKubeconfig reads arbitrary kubeconfigs: reading never panics, and
// neither its errors nor the Config it builds, printed or logged, quote a
// secret (a token, a password, key data, an exec plugin's arguments and
// environment values).
//
// Which text is a secret is found line by line (a "token: ..." line, the
// items of an "args:" list...), so also in documents that do not parse.
// A secret counts as quoted only when it is no longer there once its own
// value is replaced by another of the same length: a token equal to a
// context's name is rightly quoted as that name.
//
// The seeds are small (see FuzzListEach): fuzzKubeconfig's secrets a few
// at a time, each in a one-user kubeconfig, and the files in
// testdata/kubeconfig of up to 300 bytes; TestKubeconfigSecrets checks
// fuzzKubeconfig and every file whole.
func FuzzKubeconfig(f *testing.F) {
	const user = "current-context: c\nclusters:\n- name: c\n  cluster: {server: https://k}\n" +
		"contexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user:\n"
	f.Add(user + "    token: tokenSECRET123\n    password: \"passwordSECRET\"\n")
	f.Add(user + "    client-key-data: a2V5U0VDUkVUYnl0ZXM=\n")
	f.Add(user + "    exec:\n      command: plugin\n      args:\n      - --token=argSECRET42\n" +
		"      env:\n      - name: TOKEN\n        value: 'envSECRETvalue'\n")
	for _, doc := range kubeconfigFiles(f) {
		if len(doc) <= 300 {
			f.Add(doc)
		}
	}
	f.Fuzz(checkKubeconfigSecrets)
}

// TestKubeconfigSecrets runs FuzzKubeconfig's checks on fuzzKubeconfig and
// the files in testdata/kubeconfig whole.
func TestKubeconfigSecrets(t *testing.T) {
	for i, doc := range append([]string{fuzzKubeconfig}, kubeconfigFiles(t)...) {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			checkKubeconfigSecrets(t, doc)
		})
	}
}

// kubeconfigFiles returns the files in testdata/kubeconfig.
func kubeconfigFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "kubeconfig", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("kubeconfig files: %d, %v", len(files), err)
	}
	var docs []string
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return docs
}

// checkKubeconfigSecrets reads doc as a kubeconfig and checks that no
// secret of it is quoted, as FuzzKubeconfig says.
func checkKubeconfigSecrets(t *testing.T, doc string) {
	secrets := kubeconfigSecrets(doc)
	text := readKubeconfigText(doc)
	if len(secrets) == 0 {
		return
	}
	masked := doc
	for _, s := range secrets {
		masked = strings.Replace(masked, s.line, s.masked, 1)
	}
	maskedText := readKubeconfigText(masked)
	for _, s := range secrets {
		if strings.Contains(text, s.value) && !strings.Contains(maskedText, s.value) {
			t.Errorf("reading the kubeconfig quotes the secret %q:\n%s\n--- kubeconfig:\n%s", s.value, text, doc)
		}
	}
}

// readKubeconfigText reads doc as a kubeconfig and returns everything a
// user may see of it: the error, or the Config printed and logged.
func readKubeconfigText(doc string) string {
	k := newKubeconfig()
	err := k.add("/fuzz/kubeconfig", []byte(doc))
	var cfg *Config
	if err == nil {
		cfg, err = k.config("")
	}
	if err != nil {
		return err.Error()
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%v %+v %#v %s\n", cfg, cfg, cfg, cfg)
	slog.New(slog.NewJSONHandler(&b, nil)).Info("config", "config", cfg, "tls", cfg.TLS, "exec", cfg.Exec, "nested", struct{ C *Config }{cfg})
	slog.New(slog.NewTextHandler(&b, nil)).Info("config", "config", cfg, "tls", cfg.TLS, "exec", cfg.Exec)
	for _, u := range k.users { // the users no context names too
		if u.exec != nil {
			fmt.Fprintf(&b, "%v %+v %#v\n", *u.exec, u.exec, u.exec)
			slog.New(slog.NewJSONHandler(&b, nil)).Info("exec", "exec", u.exec, "nested", struct{ E *ExecConfig }{u.exec})
		}
	}
	return b.String()
}

// kubeconfigSecret is a secret value on a line of a kubeconfig.
type kubeconfigSecret struct {
	value  string
	line   string // the line that holds it
	masked string // the line with the value replaced
}

var (
	// secretLine is a line that sets a secret field ("token: x", also
	// without the colon, which is a syntax error to report: the colon
	// group is then empty); the value may be quoted and followed by a
	// comment.
	secretLine = regexp.MustCompile(`^\s*(?:-\s+)?(?:token|password|client-key-data|value)(\s*:)?[ \t]+(.*)$`)
	argsLine   = regexp.MustCompile(`^(\s*)(?:-\s+)?args\s*:\s*$`)
	itemLine   = regexp.MustCompile(`^(\s*)-[ \t]+(.*)$`)
	// plainSecret is what a value must be made of to be replaced without
	// changing how the document parses.
	plainSecret = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{6,}$`)
)

// kubeconfigSecrets finds the secret values of doc, line by line.
//
// A line without the colon is a secret only in a document that does not
// parse: in one that does, it continues the scalar of a line above
// ("current-context:" followed by " token abcdef" names a context
// "token abcdef"), which is no secret to hide.
func kubeconfigSecrets(doc string) []kubeconfigSecret {
	var out []kubeconfigSecret
	_, parseErr := yaml.ParseNode([]byte(doc))
	argsIndent := -1 // the indentation of the "args:" line whose items are read, -1 outside
	for _, line := range strings.Split(doc, "\n") {
		var raw string
		if m := itemLine.FindStringSubmatch(line); m != nil && argsIndent >= 0 && len(m[1]) >= argsIndent {
			raw = m[2]
		} else {
			argsIndent = -1
			if m := argsLine.FindStringSubmatch(line); m != nil {
				argsIndent = len(m[1])
				continue
			}
			m := secretLine.FindStringSubmatch(line)
			if m == nil || (m[1] == "" && parseErr == nil) {
				continue
			}
			raw = m[2]
		}
		v := unquoteValue(raw)
		if !plainSecret.MatchString(v) || strings.Trim(v, "Q") == "" {
			continue
		}
		at := strings.LastIndex(line, v)
		out = append(out, kubeconfigSecret{value: v, line: line, masked: line[:at] + strings.Repeat("Q", len(v)) + line[at+len(v):]})
	}
	return out
}

// unquoteValue returns the text of a YAML scalar on one line: inside its
// quotes, or before its comment.
func unquoteValue(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw != "" && (raw[0] == '"' || raw[0] == '\'') {
		if end := strings.IndexByte(raw[1:], raw[0]); end >= 0 {
			return raw[1 : end+1]
		}
		return ""
	}
	if i := strings.Index(raw, " #"); i >= 0 {
		raw = raw[:i]
	}
	return strings.TrimSpace(raw)
}
