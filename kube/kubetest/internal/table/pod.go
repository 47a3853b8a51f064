// SPDX-License-Identifier: Apache-2.0

package table

import (
	"fmt"
	"strconv"
	"time"
)

// This file computes a Pod's row as kube-apiserver's printer does: READY
// counts ready containers (and started restartable init containers, the
// sidecars), STATUS is the phase refined by the reason of the first
// failing or waiting init container, then of the containers, then by
// deletion, RESTARTS adds the time since the last restart. Finished pods
// carry a Completed row condition.

func cellsPod(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	spec, status := atObj(o, "spec"), atObj(o, "status")
	phase := atStr(status, "phase")
	reason := phase
	if r := atStr(status, "reason"); r != "" {
		reason = r
	}
	conditions := atList(status, "conditions")
	for _, c := range conditions {
		if atStr(c, "type") == "PodScheduled" && atStr(c, "reason") == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}
	var conds []RowCondition
	switch phase {
	case "Succeeded":
		conds = []RowCondition{{Type: "Completed", Status: "True", Reason: "Succeeded", Message: "The pod has completed successfully."}}
	case "Failed":
		conds = []RowCondition{{Type: "Completed", Status: "True", Reason: "Failed", Message: "The pod failed."}}
	}

	initContainers := atList(spec, "initContainers")
	sidecar := map[string]bool{}
	total := len(atList(spec, "containers"))
	for _, c := range initContainers {
		if atStr(c, "restartPolicy") == "Always" {
			sidecar[atStr(c, "name")] = true
			total++
		}
	}

	var restarts, sidecarRestarts, ready int64
	var lastRestart, lastSidecarRestart time.Time
	initializing := false
	for i, cs := range atList(status, "initContainerStatuses") {
		n, _ := atInt(cs, "restartCount")
		restarts += n
		finished := terminatedAt(cs)
		lastRestart = later(lastRestart, finished)
		isSidecar := sidecar[atStr(cs, "name")]
		if isSidecar {
			sidecarRestarts += n
			lastSidecarRestart = later(lastSidecarRestart, finished)
		}
		term := atObj(cs, "state", "terminated")
		exit, _ := atInt(term, "exitCode")
		waiting := atStr(cs, "state", "waiting", "reason")
		switch {
		case term != nil && exit == 0:
			continue
		case isSidecar && at(cs, "started") == true:
			if at(cs, "ready") == true {
				ready++
			}
			continue
		case term != nil:
			if r := atStr(term, "reason"); r != "" {
				reason = "Init:" + r
			} else if sig, _ := atInt(term, "signal"); sig != 0 {
				reason = fmt.Sprintf("Init:Signal:%d", sig)
			} else {
				reason = fmt.Sprintf("Init:ExitCode:%d", exit)
			}
		case waiting != "" && waiting != "PodInitializing":
			reason = "Init:" + waiting
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(initContainers))
		}
		initializing = true
		break
	}

	if !initializing || conditionTrue(conditions, "Initialized") {
		restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning := false
		errorReason := ""
		statuses := atList(status, "containerStatuses")
		for i := len(statuses) - 1; i >= 0; i-- {
			cs := statuses[i]
			n, _ := atInt(cs, "restartCount")
			restarts += n
			lastRestart = later(lastRestart, terminatedAt(cs))
			term := atObj(cs, "state", "terminated")
			switch {
			case atStr(cs, "state", "waiting", "reason") != "":
				reason = atStr(cs, "state", "waiting", "reason")
			case term != nil:
				exit, _ := atInt(term, "exitCode")
				if r := atStr(term, "reason"); r != "" {
					reason = r
				} else if sig, _ := atInt(term, "signal"); sig != 0 {
					reason = fmt.Sprintf("Signal:%d", sig)
				} else {
					reason = fmt.Sprintf("ExitCode:%d", exit)
				}
				if exit != 0 {
					errorReason = reason
				}
			case at(cs, "ready") == true && atObj(cs, "state", "running") != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" {
			switch {
			case hasRunning && conditionTrue(conditions, "Ready"):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}

	if at(o, "metadata", "deletionTimestamp") != nil {
		if atStr(status, "reason") == "NodeLost" {
			reason = "Unknown"
		} else if phase != "Succeeded" && phase != "Failed" {
			reason = "Terminating"
		}
	}

	restartCell := strconv.FormatInt(restarts, 10)
	if restarts != 0 && !lastRestart.IsZero() {
		restartCell = fmt.Sprintf("%d (%s ago)", restarts, humanDuration(now.Sub(lastRestart)))
	}

	podIP := "<none>"
	if ips := atList(status, "podIPs"); len(ips) > 0 && atStr(ips[0], "ip") != "" {
		podIP = atStr(ips[0], "ip")
	}
	gates := "<none>"
	if rg := atList(spec, "readinessGates"); len(rg) > 0 {
		trueGates := 0
		for _, g := range rg {
			for _, c := range conditions {
				if atStr(c, "type") == atStr(g, "conditionType") {
					if atStr(c, "status") == "True" {
						trueGates++
					}
					break
				}
			}
		}
		gates = fmt.Sprintf("%d/%d", trueGates, len(rg))
	}
	return []any{name, fmt.Sprintf("%d/%d", ready, total), reason, restartCell, age,
		podIP, orNone(atStr(spec, "nodeName")), orNone(atStr(status, "nominatedNodeName")), gates}, conds
}

// terminatedAt is when a container status's last termination finished.
func terminatedAt(cs obj) time.Time {
	t, _ := time.Parse(time.RFC3339, atStr(cs, "lastState", "terminated", "finishedAt"))
	return t
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// conditionTrue reports whether the condition of type typ is True.
func conditionTrue(conds []obj, typ string) bool {
	for _, c := range conds {
		if atStr(c, "type") == typ {
			return atStr(c, "status") == "True"
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
