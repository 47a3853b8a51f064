// SPDX-License-Identifier: Apache-2.0

// Command kubetype writes the Go type of a Kubernetes kind, for use with
// kubeloop, from the OpenAPI schema the API server publishes: a struct per
// object schema, doc comments from the schema's descriptions, kube.TypeMeta
// and kube.ObjectMeta embedded at the top, and the GroupVersionKind method
// that makes it a kube.Object. Whole, or only the fields named.
//
//	kubetype -kubetest apps/v1/Deployment > deployment.go
//	kubetype -fields spec.replicas,spec.template.spec.containers.image apps/v1/Deployment
//	kubetype -kubeconfig ~/.kube/config -package widgets example.com/v1/Widget
//
// A kind is named as apiVersion/Kind (v1/ConfigMap, apps/v1/Deployment) or
// by its Kind alone when one group-version serves it. Several kinds may be
// named; types they share are written once.
//
// Flags:
//
//	-kubeconfig PATH  the server to read the schema from (default: as
//	                  kubectl finds it: $KUBECONFIG, in-cluster, ~/.kube/config)
//	-kubetest         read kube/kubetest's schema (captured from
//	                  kube-apiserver) instead of a server's: no cluster needed,
//	                  built-in kinds only
//	-fields LIST      comma-separated JSON paths (spec.replicas); only these
//	                  fields, and what lies below them, are declared. A list
//	                  is crossed without a mark: spec.template.spec.containers.image.
//	                  Empty: every field.
//	-package NAME     the package clause (default main)
//	-o FILE           write there instead of standard output
//
// How fields become Go: a required field is a value without omitempty; an
// optional integer, number or boolean is a pointer (absent and zero differ:
// the server defaults an absent Deployment's replicas to 1), an optional
// object is a pointer unless the schema gives it a default ({}), then a
// value with omitzero; strings, lists and maps take omitempty. Quantities
// and durations are strings, int-or-string fields kube.IntOrString, times
// kube.Time, and free-form fields (RawExtension, preserve-unknown-fields)
// json.RawMessage. kube's own types stand for the metadata types
// (ObjectMeta, LabelSelector, OwnerReference, Condition, ObjectReference).
//
// A partial type is safe to write with: kubeloop's Update keeps what the
// type does not declare (see kube.Client.Update).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kubetype:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// options are the parsed flags and arguments.
type options struct {
	kubeconfig string
	kubetest   bool
	fields     []string
	pkg        string
	out        string
	kinds      []string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var fields string
	fs := flag.NewFlagSet("kubetype", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the server's kubeconfig (default: as kubectl finds it)")
	fs.BoolVar(&o.kubetest, "kubetest", false, "read kube/kubetest's captured schema instead of a server's")
	fs.StringVar(&fields, "fields", "", "comma-separated JSON paths to declare (default: every field)")
	fs.StringVar(&o.pkg, "package", "main", "the package clause")
	fs.StringVar(&o.out, "o", "", "output file (default: standard output)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kubetype [flags] apiVersion/Kind...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.kinds = fs.Args()
	if len(o.kinds) == 0 {
		fs.Usage()
		return o, fmt.Errorf("name at least one kind, as apiVersion/Kind (apps/v1/Deployment): %w", flag.ErrHelp)
	}
	if o.kubetest && o.kubeconfig != "" {
		return o, errors.New("-kubetest and -kubeconfig both given: choose one source of the schema")
	}
	if !isIdent(o.pkg) {
		return o, fmt.Errorf("-package %q is not a Go identifier", o.pkg)
	}
	for _, f := range strings.Split(fields, ",") {
		if f = strings.TrimSpace(f); f != "" {
			o.fields = append(o.fields, f)
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	src, err := openSource(o)
	if err != nil {
		return err
	}
	defer src.close()
	g := newGenerator(o, src.describe(ctx))
	for _, name := range o.kinds {
		k, err := findKind(ctx, src, name)
		if err != nil {
			return err
		}
		if err := g.add(k, o.fields); err != nil {
			return err
		}
	}
	code, err := g.source()
	if err != nil {
		return err
	}
	if o.out == "" {
		_, err = stdout.Write(code)
		return err
	}
	return os.WriteFile(o.out, code, 0o644)
}
