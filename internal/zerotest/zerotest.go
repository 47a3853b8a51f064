// SPDX-License-Identifier: Apache-2.0

// Package zerotest checks, for the tests of a public package, that every
// exported type's zero value works or returns an error and that a typed
// nil is treated as nil: [Walk] calls each exported method of each type
// a test lists on its zero value, on a nil pointer (for pointer
// receivers), with zero arguments and then with typed nils for interface
// parameters, and fails the test, naming the type and the method, on a
// panic or on a call that does not return. It also reads the package's
// source and fails when an exported type with methods is missing from
// the list, so that a new type is walked too.
//
// It imports only the standard library.
package zerotest

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// Types is what a package's test gives [Walk].
type Types struct {
	// Values are pointers to the zero value of each exported type with
	// methods, new(T); a generic type instantiated once.
	Values []any
	// TypedNils are nil pointers (or nil values of other kinds) that the
	// walk passes where a parameter is an interface they implement, such
	// as (*kube.ConfigMap)(nil) for a kube.Object.
	TypedNils []any
	// Except names methods ("Type.Method") not called, each with its
	// reason; "Type" alone leaves the whole type out.
	Except map[string]string
}

// callTimeout bounds one call: a method that blocks on a zero value
// must return once its context (deadline callContext) is done.
const (
	callTimeout = 5 * time.Second
	callContext = 20 * time.Millisecond
)

// T is what Walk reports to: a *testing.T.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Walk checks the package whose source is in dir (the test's own, ".").
func Walk(t T, dir string, types Types) {
	t.Helper()
	listed := map[string]bool{}
	for _, v := range types.Values {
		listed[typeName(reflect.TypeOf(v).Elem())] = true
	}
	declared := declaredMethods(t, dir)
	for name := range declared {
		if !listed[name] && types.Except[name] == "" {
			t.Errorf("exported type %s has methods but is not in the zero-value walk: add new(%s) to Types.Values", name, name)
		}
	}
	for _, v := range types.Values {
		ptr := reflect.TypeOf(v)
		name := typeName(ptr.Elem())
		if types.Except[name] != "" {
			continue
		}
		for i := range ptr.NumMethod() {
			m := ptr.Method(i)
			if !m.IsExported() || types.Except[name+"."+m.Name] != "" {
				continue
			}
			for _, mode := range []argMode{zeroArgs, typedNilArgs, zeroObjectArgs} {
				// A fresh zero value each time: a call that failed may
				// have left the one before unusable (a mutex held).
				call(t, name, m, "zero value", reflect.New(ptr.Elem()), mode, types.TypedNils)
				if declared[name][m.Name] {
					call(t, name, m, "nil pointer", reflect.Zero(ptr), mode, types.TypedNils)
				}
			}
		}
	}
}

// call calls method m on recv, and fails t on a panic or when it does
// not return within callTimeout.
func call(t T, typ string, m reflect.Method, what string, recv reflect.Value, mode argMode, nils []any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callContext)
	defer cancel()
	if blocks(m.Name) {
		cancel()
	}
	args := []reflect.Value{recv}
	mt := m.Type
	fixed := mt.NumIn()
	if mt.IsVariadic() {
		fixed--
	}
	for i := 1; i < fixed; i++ {
		args = append(args, argument(ctx, mt.In(i), mode, nils))
	}
	desc := fmt.Sprintf("(%s %s).%s%s", what, typ, m.Name, mode)
	done := make(chan string, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Sprintf("%v\n%s", p, debug.Stack())
			}
		}()
		m.Func.Call(args)
		done <- ""
	}()
	select {
	case p := <-done:
		if p != "" {
			t.Errorf("%s panics: %s", desc, p)
		}
	case <-time.After(callTimeout):
		t.Errorf("%s did not return within %v of its context's end", desc, callTimeout)
	}
}

// blocks says which methods run until their context is done: they get
// one already cancelled.
func blocks(name string) bool {
	return slices.Contains([]string{"Start", "Run", "Serve", "ServeHTTP", "Wait"}, name) ||
		strings.HasPrefix(name, "Run") || strings.HasPrefix(name, "Start")
}

var contextType = reflect.TypeFor[context.Context]()

// argMode says what the walk passes for interface parameters.
type argMode string

const (
	zeroArgs       argMode = ""                   // nil
	typedNilArgs   argMode = " with typed nils"   // a typed nil that implements it
	zeroObjectArgs argMode = " with zero objects" // a pointer to the zero value of a typed nil's type
)

// argument is the value passed for a parameter of type in: ctx for a
// context; for an interface, what mode says (nil when no typed nil
// implements it); for a pointer, a pointer to a zero value (a nil
// destination is the caller's mistake, as for json.Unmarshal); else the
// zero value. fmt.State gets one that discards what is written, as fmt
// passes; an HTTP handler gets a recorder and an empty POST, as net/http
// passes.
func argument(ctx context.Context, in reflect.Type, mode argMode, nils []any) reflect.Value {
	switch {
	case in == contextType:
		return reflect.ValueOf(&ctx).Elem()
	case in == stateType:
		var st fmt.State = discardState{}
		return reflect.ValueOf(&st).Elem()
	case in == responseWriterType:
		var w http.ResponseWriter = httptest.NewRecorder()
		return reflect.ValueOf(&w).Elem()
	case in == requestType:
		return reflect.ValueOf(httptest.NewRequestWithContext(ctx, http.MethodPost, "/", http.NoBody))
	case in.Kind() == reflect.Pointer:
		return reflect.New(in.Elem())
	case mode != zeroArgs && in.Kind() == reflect.Interface:
		for _, n := range nils {
			v := reflect.ValueOf(n)
			if !v.IsValid() || !v.Type().Implements(in) {
				continue
			}
			if mode == zeroObjectArgs && v.Kind() == reflect.Pointer {
				v = reflect.New(v.Type().Elem())
			}
			out := reflect.New(in).Elem()
			out.Set(v)
			return out
		}
	}
	return reflect.Zero(in)
}

var (
	stateType          = reflect.TypeFor[fmt.State]()
	responseWriterType = reflect.TypeFor[http.ResponseWriter]()
	requestType        = reflect.TypeFor[*http.Request]()
)

// discardState is a fmt.State without flags that discards its output.
type discardState struct{}

func (discardState) Write(b []byte) (int, error) { return len(b), nil }
func (discardState) Width() (int, bool)          { return 0, false }
func (discardState) Precision() (int, bool)      { return 0, false }
func (discardState) Flag(int) bool               { return false }

// typeName is t's name without its type arguments.
func typeName(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return name
}

// declaredMethods maps the exported types of the package in dir that
// declare an exported method to those methods, each true when its
// receiver is a pointer. Methods promoted from an embedded field are not
// the type's own: on a nil pointer, Go's promotion itself dereferences.
func declaredMethods(t T, dir string) map[string]map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("read the package's source: %v", err)
	}
	seen := map[string]map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || !fd.Name.IsExported() {
					continue
				}
				recv := fd.Recv.List[0].Type
				if name := receiverName(recv); ast.IsExported(name) {
					if seen[name] == nil {
						seen[name] = map[string]bool{}
					}
					_, pointer := recv.(*ast.StarExpr)
					seen[name][fd.Name.Name] = pointer
				}
			}
		}
	}
	return seen
}

func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}
