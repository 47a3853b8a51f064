// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// Both clients of the module are controller.Clients: the API server's and
// the manager's (cache reads, API writes).
var (
	_ controller.Client = (*kube.Client)(nil)
	_ controller.Client = (*manager.Client)(nil)
)
