// SPDX-License-Identifier: Apache-2.0

// Package componentstatus holds the ComponentStatuses (core v1,
// deprecated) kube-apiserver 1.36 reports in the harness, where neither
// kube-scheduler nor kube-controller-manager serves its health port on
// the default address and etcd answers. [Serve] answers a get or a
// list of them; nothing is stored.
//
// Guarantees:
//   - Items returns new objects on each call: a caller may change them.
package componentstatus

import "strconv"

// obj is a decoded JSON object.
type obj = map[string]any

// Deprecated is the warning every answer carries.
const Deprecated = "v1 ComponentStatus is deprecated in v1.19+"

// Items are the components in the real server's order, each a whole
// ComponentStatus (kind, apiVersion, metadata.name, conditions).
func Items() []map[string]any {
	item := func(name, status, message string) obj {
		return obj{"kind": "ComponentStatus", "apiVersion": "v1", "metadata": obj{"name": name},
			"conditions": []any{obj{"type": "Healthy", "status": status, "message": message}}}
	}
	refused := func(port int) string {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		return `Get "https://` + addr + `/healthz": dial tcp ` + addr + `: connect: connection refused`
	}
	return []obj{
		item("controller-manager", "False", refused(10257)),
		item("scheduler", "False", refused(10259)),
		item("etcd-0", "True", "ok"),
	}
}
