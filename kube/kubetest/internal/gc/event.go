// SPDX-License-Identifier: Apache-2.0

package gc

import (
	"fmt"
	"time"
)

// Ref names an object for an Event: its kind, API version, namespace
// ("" when cluster-scoped), name and uid.
type Ref struct {
	APIVersion, Kind, Namespace, Name, UID string
}

// component is the collector's name in its Events.
const component = "garbage-collector-controller"

// InvalidNamespaceEvent is the core v1 Warning Event the collector
// records about dependent when its owner reference owner (whose Namespace
// is ignored) names by uid an object in another namespace: in the
// dependent's namespace, or in default for a cluster-scoped dependent, as
// the real recorder puts it. now names the Event and stamps it.
func InvalidNamespaceEvent(dependent, owner Ref, now time.Time) map[string]any {
	stamp := now.UTC().Truncate(time.Second).Format(time.RFC3339)
	involved := map[string]any{"kind": dependent.Kind, "name": dependent.Name, "uid": dependent.UID, "apiVersion": dependent.APIVersion}
	evNamespace := "default"
	if dependent.Namespace != "" {
		involved["namespace"], evNamespace = dependent.Namespace, dependent.Namespace
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": fmt.Sprintf("%s.%x", dependent.Name, now.UnixNano()), "namespace": evNamespace},
		"involvedObject": involved,
		"reason":         "OwnerRefInvalidNamespace",
		"message": fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
			owner.APIVersion, owner.Kind, dependent.Namespace, owner.Name, owner.UID, dependent.Namespace),
		"source":         map[string]any{"component": component},
		"firstTimestamp": stamp, "lastTimestamp": stamp, "count": int64(1), "type": "Warning",
		"eventTime": nil, "reportingComponent": component, "reportingInstance": "",
	}
}
