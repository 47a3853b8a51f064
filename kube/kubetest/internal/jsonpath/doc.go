// SPDX-License-Identifier: Apache-2.0

// Package jsonpath parses and evaluates the JSONPath of a
// CustomResourceDefinition's additionalPrinterColumns as kube-apiserver
// does: kubectl's JSONPath template syntax, without range and end.
//
// A [Path] from [Parse] is immutable and safe to share; [Path.First]
// returns the value a Table cell shows and never modifies its input.
package jsonpath
