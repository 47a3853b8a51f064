// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file routes a resource request to its verb: it resolves the
// resource, checks scope, subresource and authorization, negotiates the
// response form, and reads the body.

// call is one resource request being served.
type call struct {
	info RequestInfo
	res  *resource
	col  *collection
	q    url.Values
	r    *http.Request
	w    http.ResponseWriter
	// partial says the client asked for PartialObjectMetadata(List).
	partial bool
	// table, when set, says the client asked for a Table.
	table *tableForm
	// dryRun says dryRun=All: validate and answer, change nothing.
	dryRun bool
	// manager is the field manager of a write: ?fieldManager= or the
	// first segment of the User-Agent.
	manager string
	// fieldValidation is ?fieldValidation= of a write: Strict, Warn (the
	// default) or Ignore (fieldvalidation.go).
	fieldValidation string
	// skipEmbedded names no embedded struct in a decode error's path
	// (minor.Facts.DecodePathsSkipEmbedded).
	skipEmbedded bool
}

// serveResource serves a request for a resource: a virtual one
// (virtualResource) by its own handler, a stored one as a call that is
// checked and read (prepareCall) and then served by its verb (dispatch).
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, info RequestInfo) {
	if serve := s.virtualResource(info); serve != nil {
		_, _, pb, ok := media.Negotiate(r.Header.Get("Accept"), false, false, true)
		if pw := protobufWriter(w, r.Header.Get("Accept"), ok && pb, false); pw != nil {
			defer pw.Finish()
			w = pw
		}
		serve(w, r)
		return
	}
	var res *resource
	var col *collection
	var unknownGroup bool
	s.withLock(func() {
		if res = s.reg.Lookup(info.Group, info.Version, info.Resource); res != nil {
			col = s.cols[res.colKey()]
		}
		unknownGroup = info.Group != "" && len(s.reg.Versions(info.Group)) == 0 ||
			res == nil && s.reg.CRDOnly(info.Group)
	})
	switch {
	case unknownGroup: // no handler for the group (or its CRDs' handler passed it on): the mux's own 404
		http.NotFound(w, r)
		return
	case res == nil:
		apierr.Write(w, apierr.ResourceNotFound())
		return
	}
	c := &call{info: info, res: res, col: col, q: r.URL.Query(), r: r, w: w, skipEmbedded: s.facts.DecodePathsSkipEmbedded}
	if pw := c.protobufWriter(); pw != nil {
		defer pw.Finish()
		c.w = pw
	}
	if err := s.prepareCall(c); err != nil {
		apierr.Write(c.w, err)
		return
	}
	s.dispatch(c)
}

// protobufWriter returns the writer that turns c's JSON answers into
// protobuf: its objects when its Accept header chooses protobuf for them,
// its errors when the header prefers protobuf for errors (also a custom
// resource's); nil when neither.
func (c *call) protobufWriter() *protobuf.ResponseWriter {
	verb, accept := c.info.Verb, c.r.Header.Get("Accept")
	_, _, pb, ok := media.Negotiate(accept, verb == "list" || verb == "deletecollection", verb == "watch", c.hasProtobuf())
	return protobufWriter(c.w, accept, ok && pb, verb == "watch")
}

// protobufWriter returns the writer of protobufWriter for w, nil when it
// transcodes nothing.
func protobufWriter(w http.ResponseWriter, accept string, objects, watch bool) *protobuf.ResponseWriter {
	as := protobuf.Answers{Objects: objects, Errors: protobuf.ErrorsPreferred(accept), Watch: watch}
	if !as.Objects && !as.Errors {
		return nil
	}
	return protobuf.NewResponseWriter(w, as)
}

// hasProtobuf reports whether c's kind has a protobuf form: the built-in
// kinds do, custom resources do not.
func (c *call) hasProtobuf() bool {
	return c.res.CRD == "" && protobuf.Known(c.res.APIVersion(), c.res.Kind)
}

// virtualResource returns the handler of the resources that are not
// stored (reviews, bindings, component statuses), nil for the others.
func (s *Server) virtualResource(info RequestInfo) func(http.ResponseWriter, *http.Request) {
	switch {
	case reviewOf(info) != nil:
		return func(w http.ResponseWriter, r *http.Request) { s.serveReview(w, r, info, reviewOf(info)) }
	case isBinding(info):
		return func(w http.ResponseWriter, r *http.Request) { s.serveBinding(w, r, info) }
	case isComponentStatus(info):
		return func(w http.ResponseWriter, _ *http.Request) { s.serveComponentStatus(w, info) }
	}
	return nil
}

// prepareCall checks c's route and authorization and reads what every
// verb shares from its request: the response form (Accept), dryRun,
// fieldValidation and the field manager.
func (s *Server) prepareCall(c *call) *kube.StatusError {
	if err := c.checkRoute(); err != nil {
		return err
	}
	if err := s.authorize(c.info); err != nil {
		return err
	}
	if c.res.Deprecated != "" {
		c.warn(c.res.Deprecated)
	}
	verb := c.info.Verb
	partial, table, _, ok := media.Negotiate(c.r.Header.Get("Accept"), verb == "list" || verb == "deletecollection", verb == "watch", c.hasProtobuf())
	if !ok {
		return apierr.NotAcceptable()
	}
	c.partial = partial
	if table != "" {
		c.table = newTableForm(c.q, table)
	}
	if err := c.parseDryRun(); err != nil {
		return err
	}
	if verb == "create" || verb == "update" || verb == "patch" {
		if err := c.parseFieldValidation(); err != nil {
			return err
		}
	}
	c.manager = media.ManagerOf(c.r)
	return nil
}

// parseDryRun sets c.dryRun from ?dryRun=, whose only value is All.
func (c *call) parseDryRun() *kube.StatusError {
	dr := c.q["dryRun"]
	if len(dr) == 0 {
		return nil
	}
	for _, v := range dr {
		if v != "All" {
			return apierr.Invalid("meta.k8s.io", "CreateOptions", "", []fielderr.Error{{
				Type: "FieldValueNotSupported", Field: "dryRun", Value: dr, Detail: fielderr.NotSupportedDetail("All")}})
		}
	}
	c.dryRun = true
	return nil
}

// dispatch serves a prepared call by its subresource (scale, log,
// eviction, token, the connect ones) or else by its verb.
func (s *Server) dispatch(c *call) {
	switch {
	case c.info.Subresource == "scale":
		s.serveScale(c)
		return
	case isPodLog(c.res, c.info):
		s.servePodLog(c)
		return
	case isEviction(c.res, c.info):
		s.serveEviction(c)
		return
	case isTokenRequest(c.res, c.info):
		s.serveTokenRequest(c)
		return
	case isConnect(c.res, c.info):
		s.serveConnect(c)
		return
	}
	switch c.info.Verb {
	case "get":
		s.serveGet(c)
	case "list":
		s.serveList(c)
	case "watch":
		s.serveWatch(c)
	case "create":
		s.serveCreate(c)
	case "update":
		s.serveUpdate(c)
	case "patch":
		s.servePatch(c)
	case "delete":
		s.serveDelete(c)
	case "deletecollection":
		s.serveDeleteCollection(c)
	default:
		apierr.Write(c.w, apierr.MethodNotAllowed())
	}
}

// key is the storage key of the object the call names.
func (c *call) key() string {
	if c.res.Namespaced {
		return objectKey(c.info.Namespace, c.info.Name)
	}
	return c.info.Name
}

// checkRoute refuses what the real server has no route for: a subresource
// the resource has not (kinds.Resource.Subresources) or a verb it lacks, a namespace for a cluster-scoped kind, a named request
// without a namespace for a namespaced kind, and verbs the route lacks.
func (c *call) checkRoute() *kube.StatusError {
	info, res := c.info, c.res
	if info.Subresource != "" {
		sub, known := res.Subresource(info.Subresource)
		if !known || info.Name == "" {
			return apierr.ResourceNotFound()
		}
		if !slices.Contains(sub.Verbs, info.Verb) {
			return apierr.MethodNotAllowed()
		}
	}
	if !res.Namespaced && info.Namespace != "" && info.Resource != "namespaces" {
		return apierr.ResourceNotFound()
	}
	if res.Namespaced && info.Namespace == "" {
		if info.Name != "" {
			return apierr.ResourceNotFound()
		}
		if info.Verb != "list" && info.Verb != "watch" {
			return apierr.MethodNotAllowed()
		}
	}
	if info.Verb == "deletecollection" && res.NoDeleteCollection {
		return apierr.MethodNotAllowed()
	}
	if (info.Verb == "update" || info.Verb == "patch") && info.Name == "" {
		return apierr.MethodNotAllowed()
	}
	return nil
}

// decodeRequestObject reads the body of r as an object
// (media.DecodeRequest); a number beyond float64's range answers, for res
// (nil for a review), the real server's "cannot be handled as" a kind.
func decodeRequestObject(r *http.Request, res *resource) (obj, string, []byte, *kube.StatusError) {
	o, mt, body, numErr, serr := media.DecodeRequest(r)
	switch {
	case numErr != nil && res != nil:
		return nil, "", nil, cannotHandle(res, numErr.Error())
	case numErr != nil:
		return nil, "", nil, apierr.BadRequest("the object provided could not be decoded: " + numErr.Error())
	}
	return o, mt, body, serr
}

// decodeBody reads a create or update body: an object of the call's kind
// in JSON, YAML, or for built-in kinds protobuf.
func (c *call) decodeBody() (obj, *kube.StatusError) {
	o, mt, body, serr := decodeRequestObject(c.r, c.res)
	if serr != nil {
		return nil, serr
	}
	if mt != "application/json" {
		body = encode.Object(o) // the schema checks read JSON
	}
	if err := c.checkBody(body, o); err != nil {
		return nil, err
	}
	if err := checkKind(c.res, o); err != nil {
		return nil, err
	}
	return o, nil
}

// checkKind checks (and fills) apiVersion and kind of a body.
func checkKind(res *resource, o obj) *kube.StatusError {
	av, kind := unstructured.String(o, "apiVersion"), unstructured.String(o, "kind")
	if kind != "" && kind != res.Kind {
		return apierr.BadRequest("the kind \"" + kind + "\" in the body does not match the kind \"" + res.Kind + "\" of the request")
	}
	if av != "" && av != res.APIVersion() {
		return apierr.BadRequest("the API version in the data (" + av + ") does not match the expected API version (" + res.APIVersion() + ")")
	}
	if _, isMap := o["metadata"]; isMap {
		if _, ok := o["metadata"].(obj); !ok && o["metadata"] != nil {
			return apierr.BadRequest("metadata must be an object")
		}
	}
	m := unstructured.Metadata(o)
	for _, k := range []string{"labels", "annotations"} {
		if _, ok := unstructured.StringMap(m, k); !ok {
			return apierr.BadRequest("json: cannot unmarshal metadata." + k + ": values must be strings")
		}
	}
	o["apiVersion"], o["kind"] = res.APIVersion(), res.Kind
	return nil
}

// respond writes an object (as the call's version, projected when asked).
func (c *call) respond(code int, raw []byte) {
	raw, err := c.res.Conversion.ReadRaw(raw, c.res.APIVersion(), false)
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	if c.table != nil {
		c.respondTable(code, raw)
		return
	}
	apierr.WriteJSON(c.w, code, c.render(raw))
}

// render turns stored bytes into what the client asked for: the request's
// version, and PartialObjectMetadata when projected.
func (c *call) render(raw []byte) []byte {
	return renderAs(raw, c.res, c.partial)
}

// renderAs rewrites apiVersion when res is not the storage version, and
// projects to PartialObjectMetadata when partial.
func renderAs(raw []byte, res *resource, partial bool) []byte {
	if !partial && !res.MultiVersion && res.FromStored == nil {
		return raw
	}
	o := mustDecode(raw)
	if partial {
		return encode.Object(obj{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]})
	}
	o = res.fromStored(o)
	coerceObject(res, o) // defaults of the version read
	o["apiVersion"] = res.APIVersion()
	return encode.Object(o)
}
