// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"

	"github.com/kubeloop/kubeloop/internal/typednil"
)

// errNoClient is what the methods of a Client that NewClient did not make
// (a nil pointer or a zero Client) return.
var errNoClient = errors.New("kube.Client: use kube.NewClient")

// errNoWatcher is what Next of a Watcher that Client.Watch or NewWatcher
// did not make returns.
var errNoWatcher = errors.New("kube.Watcher: use Client.Watch or NewWatcher")

// errNilArgument is what a call given a nil object, list or function (a
// nil interface or a typed nil pointer) returns.
var errNilArgument = errors.New("kube: an object, list or function given is nil")

// made reports whether c was made by [NewClient].
func (c *Client) made() bool { return c != nil && c.mapper != nil }

// check returns an error when c was not made by [NewClient] or arg is
// nil: a nil interface or a typed nil pointer.
func (c *Client) check(arg any) error {
	switch {
	case !c.made():
		return errNoClient
	case typednil.Is(arg):
		return errNilArgument
	}
	return nil
}
