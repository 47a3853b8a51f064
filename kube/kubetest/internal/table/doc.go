// SPDX-License-Identifier: Apache-2.0

// Package table prints objects as the rows of a meta.k8s.io Table, as
// kube-apiserver 1.36 does for kubectl get: the columns (with the -o wide
// ones at priority 1) and cells of every built-in kind
// ([BuiltinPrinter]), the default convertor's Name and Created At for the
// kinds without a printer, and a CustomResourceDefinition version's
// additionalPrinterColumns ([CRDPrinter], its JSONPath read by package
// jsonpath; [ValidatePrinterColumns] refuses bad ones with the real
// server's messages).
//
// A [Printer] is immutable and safe to share. Printing decodes nothing:
// it reads an object already decoded, and never modifies it. A [Writer]
// writes the Table itself: its metadata, the columns, and each row with
// the object as includeObject asks ([ParseInclude]); which objects, and
// when (gets, list pages, watch events), is the server's.
package table
