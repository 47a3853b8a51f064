// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/scenario"
)

// TestCRDFromGoTypes installs CRDs that kube/crd builds from Go types and
// checks what the real server accepts, defaults, prunes and refuses.
func TestCRDFromGoTypes(t *testing.T) {
	admin, denied := loadConfigs(t)
	scenario.CRDFromGoTypes(t, scenario.Env{Config: admin, DeniedConfig: denied, Wait: 90 * time.Second})
}
