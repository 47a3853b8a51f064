// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"net/http"
	"strconv"
	"strings"
)

// This file holds the options of one write, so that a write reads as it
// does with controller-runtime:
//
//	c.Create(ctx, obj, kube.DryRunAll, kube.FieldOwner("installer"))
//	c.Status().Patch(ctx, obj, patch, kube.FieldValidationStrict)
//	c.Apply(ctx, obj, kube.FieldOwner("me"), kube.ForceOwnership, kube.DryRunAll)
//
// A [WriteOptions] struct is itself an option, and [ApplyOptions] is the
// same struct, so c.Apply(ctx, obj, kube.ApplyOptions{FieldManager: "me",
// Force: true}) reads as before. No option is the client's defaults.

// WriteOption is one setting of a [WriteOptions], of any write: create,
// update, patch, and apply. [DryRunAll], [ForceOwnership], [FieldOwner],
// [FieldValidation] and WriteOptions (alias ApplyOptions) itself
// implement it.
type WriteOption interface {
	// ApplyToWrite writes the option into opts.
	ApplyToWrite(opts *WriteOptions)
}

// WriteOptions refine one write (create, update, patch, apply, and their
// forms on a subresource). What they leave zero is the client's
// ([ClientOptions]).
type WriteOptions struct {
	// FieldManager names the writer in managedFields (?fieldManager=);
	// empty is [ClientOptions.FieldManager]. Apply needs one.
	FieldManager string
	// Force, for an apply (Apply, or a Patch of type [ApplyPatch]), takes
	// ownership of fields other managers own instead of failing with a
	// Conflict; the server refuses it on other writes.
	Force bool
	// DryRun asks the server to validate and answer as if it wrote,
	// changing nothing (dryRun=All), as [ClientOptions.DryRun] does for
	// every write. A dry run is not reported to [ClientOptions.OnWrite].
	DryRun bool
	// FieldValidation says what the server does with fields of the
	// object it does not know, and fields given twice; empty is the
	// server's default, Warn.
	FieldValidation FieldValidation
	// Warnings, when not nil, receives the server's warnings about the
	// write (its Warning headers: the unknown fields Warn names, a
	// deprecated API), appended in the order sent. When nil they go to
	// [ClientOptions.Logger] at warn level.
	Warnings *[]string
}

// ApplyToWrite implements [WriteOption]: the fields o sets (the non-zero
// ones) replace those of target.
func (o WriteOptions) ApplyToWrite(target *WriteOptions) {
	if o.FieldManager != "" {
		target.FieldManager = o.FieldManager
	}
	if o.FieldValidation != "" {
		target.FieldValidation = o.FieldValidation
	}
	if o.Warnings != nil {
		target.Warnings = o.Warnings
	}
	target.Force = target.Force || o.Force
	target.DryRun = target.DryRun || o.DryRun
}

// WriteFlag is a yes-or-no [WriteOption].
type WriteFlag int

// The flags of a write.
const (
	// ForceOwnership sets [WriteOptions.Force], for an apply.
	ForceOwnership WriteFlag = iota + 2
)

// ApplyToWrite implements [WriteOption].
func (f WriteFlag) ApplyToWrite(o *WriteOptions) {
	if f == ForceOwnership {
		o.Force = true
	}
}

// DryRunFlag is the type of [DryRunAll], an option of every write and
// delete.
type DryRunFlag int

// DryRunAll sets [WriteOptions.DryRun], or [DeleteOptions.DryRun].
const DryRunAll DryRunFlag = 1

// ApplyToWrite implements [WriteOption].
func (f DryRunFlag) ApplyToWrite(o *WriteOptions) { o.DryRun = o.DryRun || f == DryRunAll }

// ApplyToDelete implements [DeleteOption].
func (f DryRunFlag) ApplyToDelete(o *DeleteOptions) { o.DryRun = o.DryRun || f == DryRunAll }

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (f DryRunFlag) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { f.ApplyToDelete(&o.DeleteOptions) }

// FieldOwner sets [WriteOptions.FieldManager], of any write, an apply
// among them.
type FieldOwner string

// ApplyToWrite implements [WriteOption].
func (f FieldOwner) ApplyToWrite(o *WriteOptions) { o.FieldManager = string(f) }

// FieldValidation is the server's handling of unknown and duplicate
// fields in a write (?fieldValidation=), and sets
// [WriteOptions.FieldValidation].
type FieldValidation string

// The values of FieldValidation.
const (
	// FieldValidationStrict fails the write with a BadRequest that names
	// every unknown and duplicate field.
	FieldValidationStrict FieldValidation = "Strict"
	// FieldValidationWarn drops unknown fields, keeps the last of
	// duplicates, and names each in a warning (see [WriteOptions.Warnings]).
	FieldValidationWarn FieldValidation = "Warn"
	// FieldValidationIgnore drops and keeps them as Warn does, silently.
	FieldValidationIgnore FieldValidation = "Ignore"
)

// ApplyToWrite implements [WriteOption].
func (v FieldValidation) ApplyToWrite(o *WriteOptions) { o.FieldValidation = v }

// warned hands the Warning headers of an answer to r's collector, or
// logs them.
func (c *Client) warned(r *request, h http.Header) {
	for _, v := range h["Warning"] {
		// kube-apiserver sends `299 - "text"`, the text quoted.
		if s, err := strconv.Unquote(strings.TrimPrefix(v, "299 - ")); err == nil {
			v = s
		}
		if r.warnings == nil {
			c.log.Warn("server warning", "warning", v)
		} else {
			*r.warnings = append(*r.warnings, v)
		}
	}
}
