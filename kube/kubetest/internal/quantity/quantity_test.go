// SPDX-License-Identifier: Apache-2.0

package quantity

import "testing"

// TestCanonicalQuantity checks quantities as the real server prints the
// values of a ResourceQuota it stored (each read back from kube-apiserver
// 1.36.3).
func TestCanonicalQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"10": "10", "1500m": "1500m", "1024Mi": "1Gi", "2000m": "2", "2.5Gi": "2560Mi", "1e3": "1e3",
		"12000": "12k", "0.5Ki": "512", "0.1": "100m", "1000Ki": "1000Ki", "0.5": "500m", "2048": "2048",
		"": "0", "0": "0", "0Gi": "0", "1536Mi": "1536Mi", "1k": "1k", "1000": "1k", "1200": "1200",
		"1n": "1m", "0.1n": "1m", "0.0000000015": "1m", "0.0001": "1m", "1.5e3": "1500", "1e-3": "1e-3",
		"1.5e-3": "2e-3", "3E6": "3E6", "1e21": "1e21", "2.5": "2500m", "2Ki": "2Ki", "1536": "1536",
		"1.5Ki": "1536", "1025Ki": "1025Ki", "3Ki": "3Ki", "8Ki": "8Ki", "01Ki": "01Ki", "+5": "+5",
		"1.500": "1.500", "123456789012345678901234567890": "123456789012345678901234567890",
		"abc": "abc", "12Q": "12Q",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
