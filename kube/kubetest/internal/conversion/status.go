// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// The hooks below are what the server calls: each is a no-op on a nil
// *Webhook (a version without a conversion webhook) and answers an error
// as the real server does. They call with the context of no request: a
// call ends at its [Timeout].

// ToStorage converts o, written at another version, to apiVersion, the
// storage version. A failure is a 500 whose message is the conversion's
// error, without a reason, as every minor answers a write.
func (w *Webhook) ToStorage(o obj, apiVersion string) (obj, *kube.StatusError) {
	if w == nil {
		return o, nil
	}
	out, err := w.Convert(context.Background(), o, apiVersion)
	if err != nil {
		return nil, apierr.New(http.StatusInternalServerError, "", err.Error(), nil)
	}
	return out, nil
}

// Read converts o, a stored object, to apiVersion, the version a client
// reads. A failure is answered as [ToStorage]'s by 1.33 to 1.36; 1.37
// answers that the stored object is corrupt (500 InternalError "StorageError:
// corrupt object ... object not decodable revision=RV: ERR"), and for a list
// (inList) that it failed to read one or more objects (500 StorageReadError).
func (w *Webhook) Read(o obj, apiVersion string, inList bool) (obj, *kube.StatusError) {
	if w == nil {
		return o, nil
	}
	out, err := w.Convert(context.Background(), o, apiVersion)
	switch {
	case err == nil:
		return out, nil
	case w.Minor < 37:
		return nil, apierr.New(http.StatusInternalServerError, "", err.Error(), nil)
	case inList:
		key := "/registry" + w.key(o)
		msg := corrupt(key, o, err)
		return nil, apierr.New(http.StatusInternalServerError, "StorageReadError",
			fmt.Sprintf("failed to read one or more %s.%s from the storage: %s", w.Plural, w.Group, msg),
			&kube.StatusDetails{Name: "list", Group: w.Group, Kind: w.Plural,
				Causes: []kube.StatusCause{{Type: "UnexpectedServerResponse", Message: msg, Field: key}}})
	default:
		msg := corrupt(w.key(o), o, err)
		return nil, apierr.New(http.StatusInternalServerError, kube.ReasonInternalError, "Internal error occurred: "+msg,
			&kube.StatusDetails{Causes: []kube.StatusCause{{Message: msg}}})
	}
}

// ReadRaw is [Webhook.Read] for raw, an encoded stored object, and
// answers encoded: raw itself when w is nil or raw is at apiVersion.
func (w *Webhook) ReadRaw(raw []byte, apiVersion string, inList bool) ([]byte, *kube.StatusError) {
	if w == nil {
		return raw, nil
	}
	o, err := unstructured.DecodeObjectOrNull(raw)
	if err != nil || o == nil {
		return nil, apierr.New(http.StatusInternalServerError, "", fmt.Sprintf("decode stored object: %v", cmpErr(err)), nil)
	}
	if unstructured.String(o, "apiVersion") == apiVersion {
		return raw, nil
	}
	out, serr := w.Read(o, apiVersion, inList)
	if serr != nil {
		return nil, serr
	}
	return encode.Object(out), nil
}

// key is o's key in the real server's storage, without its /registry
// prefix: /GROUP/PLURAL/NAMESPACE/NAME.
func (w *Webhook) key(o obj) string {
	meta := metadataOf(o)
	key := "/" + w.Group + "/" + w.Plural + "/"
	if ns := unstructured.String(meta, "namespace"); ns != "" {
		key += ns + "/"
	}
	return key + unstructured.String(meta, "name")
}

// corrupt is the message of the real server's StorageError for an object
// it could not decode at key.
func corrupt(key string, o obj, err error) string {
	return fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%s: %v",
		key, unstructured.String(metadataOf(o), "resourceVersion"), err)
}
