// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// capture is one response captured from a real kube-apiserver 1.36, as kept
// in kubetest/testdata/wire (copied from the project's shared/wire; one
// copy serves both packages' tests).
type capture struct {
	code   int
	header http.Header
	body   []byte
}

func readCapture(t testing.TB, name string) capture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("kubetest", "testdata", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	if _, err := r.ReadString('\n'); err != nil { // ### request: ...
		t.Fatalf("%s: %v", name, err)
	}
	status, _ := r.ReadString('\n') // HTTP/2 200
	fields := strings.Fields(status)
	if len(fields) < 2 {
		t.Fatalf("%s: bad status line %q", name, status)
	}
	c := capture{header: http.Header{}}
	c.code, err = strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("%s: bad status line %q", name, status)
	}
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" || err != nil {
			break
		}
		k, v, _ := strings.Cut(line, ": ")
		c.header.Add(k, v)
	}
	rest := new(bytes.Buffer)
	rest.ReadFrom(r)
	c.body = rest.Bytes()
	return c
}
