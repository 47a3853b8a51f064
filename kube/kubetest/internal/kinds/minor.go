// SPDX-License-Identifier: Apache-2.0

package kinds

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/table"

// This file holds how the built-in kinds differ between the Kubernetes
// minors a server acts as: which minor first serves a resource, and what
// an older minor serves differently.

// ServedSince is the first minor that serves a built-in resource by
// default, for the resources younger than the oldest minor kubetest acts
// as (1.33); it is 0 for the rest, which every minor serves. The facts
// are the resources each group's RESTStorageProvider registers for its
// GA versions, and the GA release of their feature gates.
func ServedSince(group, plural string) int {
	switch group + "/" + plural {
	case groupDRA + "/deviceclasses", groupDRA + "/resourceclaims", groupDRA + "/resourceclaimtemplates",
		groupDRA + "/resourceslices":
		return 34 // resource.k8s.io/v1 is GA and served from 1.34
	case groupStorage + "/volumeattributesclasses":
		return 34 // the VolumeAttributesClass gate is GA from 1.34
	case groupAdmission + "/mutatingadmissionpolicies", groupAdmission + "/mutatingadmissionpolicybindings":
		return 36 // admissionregistration.k8s.io/v1 serves them from 1.36
	case "certificates.k8s.io/clustertrustbundles", "certificates.k8s.io/podcertificaterequests",
		groupDRA + "/devicetaintrules", "storagemigration.k8s.io/storageversionmigrations":
		return 37 // their gates (ClusterTrustBundle, PodCertificateRequest, DRADeviceTaintRules, StorageVersionMigrator) are GA in 1.37
	}
	return 0
}

// AdjustToMinor makes r, a built-in resource, what minor serves where it
// differs from the newest: CustomResourceDefinitions' default Table
// unless crdTable (1.37 has one of their own), CSINodes without status
// (added in 1.37), and with oldTables 1.33's printers where they differ
// (table.OldestPrinter).
func AdjustToMinor(r *Resource, minor int, crdTable, oldTables bool) {
	if p := table.OldestPrinter(r.Group + "/" + r.Plural); oldTables && p != nil {
		r.Printer = p
	}
	switch {
	case r.Plural == "customresourcedefinitions" && !crdTable:
		r.Printer = table.DefaultPrinter()
	case r.Group == groupStorage && r.Plural == "csinodes" && minor < 37:
		r.Status, r.InitStatus = false, nil
	}
}
