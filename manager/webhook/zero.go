// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"errors"
	"net/http"
)

// errNoServer is what the methods of a Server that New did not make (a
// nil pointer or a zero Server) return.
var errNoServer = errors.New("webhook.Server: use webhook.New")

// made reports whether s was made by [New].
func (s *Server) made() bool { return s != nil && s.log != nil }

// notMade answers a request to a handler that is a nil pointer: 500,
// naming the type.
func notMade(w http.ResponseWriter, what string) {
	writeError(w, &requestError{http.StatusInternalServerError, what + " is nil"})
}
