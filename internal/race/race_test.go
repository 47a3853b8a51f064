// SPDX-License-Identifier: Apache-2.0

package race

import "testing"

// TestEnabledAgreesWithTheBuild: Enabled says what the compiler was told,
// as the build constraints of built_race_test.go and built_norace_test.go
// record it. Run by the README's command (-race) and by a plain go test.
func TestEnabledAgreesWithTheBuild(t *testing.T) {
	if Enabled() != builtWithRace {
		t.Fatalf("Enabled() = %v in a binary built with race=%v", Enabled(), builtWithRace)
	}
}
