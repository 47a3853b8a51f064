// SPDX-License-Identifier: Apache-2.0

// Package crd is what a cluster does with a CustomResourceDefinition
// around the server's storage: it reads a CRD's spec ([Parse]), validates
// and defaults it on create ([Admit]) and update ([KeepNames],
// [ValidateUpdate]), accepts its names and establishes it at once as the
// naming and establishing controllers do a moment later ([Establish]),
// and handles the customresourcecleanup finalizer a CRD being deleted
// gets ([AddCleanupFinalizer], [WithoutCleanupFinalizer]). The server
// stores the CRD, serves its resource and deletes its objects.
//
// Guarantees:
//   - Nothing here keeps state or reads any object but the CRD it is
//     given; Parse never modifies it.
//   - A CRD that fails validation is refused with every failure found.
//   - spec.conversion is validated as the real server validates it
//     (package conversion's Validate); converting objects between versions
//     is the server's, through package conversion.
package crd
