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
	conditions := atList(status, "conditions")
	total, sidecar := podContainers(spec)
	row := podRow{reason: podPhaseReason(status, conditions)}
	initializing := row.initContainers(atList(status, "initContainerStatuses"), sidecar, len(atList(spec, "initContainers")))
	if !initializing || conditionTrue(conditions, "Initialized") {
		row.containers(atList(status, "containerStatuses"), conditions)
	}
	if at(o, "metadata", "deletionTimestamp") != nil {
		if atStr(status, "reason") == "NodeLost" {
			row.reason = "Unknown"
		} else if phase != "Succeeded" && phase != "Failed" {
			row.reason = "Terminating"
		}
	}
	return []any{name, fmt.Sprintf("%d/%d", row.ready, total), row.reason, row.restartCell(now), age,
		podIP(status), orNone(atStr(spec, "nodeName")), orNone(atStr(status, "nominatedNodeName")),
		readinessGates(spec, conditions)}, podRowConditions(phase)
}

// podRow is what the pod printer works out from the container statuses:
// the STATUS reason, the READY count and the RESTARTS.
type podRow struct {
	reason                          string
	ready                           int64
	restarts, sidecarRestarts       int64
	lastRestart, lastSidecarRestart time.Time
}

// podPhaseReason is STATUS before the containers refine it: the phase,
// or the pod's reason, or SchedulingGated.
func podPhaseReason(status obj, conditions []obj) string {
	reason := atStr(status, "phase")
	if r := atStr(status, "reason"); r != "" {
		reason = r
	}
	for _, c := range conditions {
		if atStr(c, "type") == "PodScheduled" && atStr(c, "reason") == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}
	return reason
}

// podRowConditions is the Completed row condition of a finished pod.
func podRowConditions(phase string) []RowCondition {
	switch phase {
	case "Succeeded":
		return []RowCondition{{Type: "Completed", Status: "True", Reason: "Succeeded", Message: "The pod has completed successfully."}}
	case "Failed":
		return []RowCondition{{Type: "Completed", Status: "True", Reason: "Failed", Message: "The pod failed."}}
	}
	return nil
}

// podContainers counts the containers READY counts (the containers and
// the sidecars, init containers that restart Always) and names the
// sidecars.
func podContainers(spec obj) (total int, sidecar map[string]bool) {
	sidecar = map[string]bool{}
	total = len(atList(spec, "containers"))
	for _, c := range atList(spec, "initContainers") {
		if atStr(c, "restartPolicy") == "Always" {
			sidecar[atStr(c, "name")] = true
			total++
		}
	}
	return total, sidecar
}

// initContainers counts the restarts of the init containers (of the
// sidecars apart) and the ready sidecars, and sets the Init: reason of
// the first that has not finished, up to which it reads; it reports
// whether there is one (the pod is initializing). n is the number of
// init containers of the spec.
func (p *podRow) initContainers(statuses []obj, sidecar map[string]bool, n int) (initializing bool) {
	for i, cs := range statuses {
		count, _ := atInt(cs, "restartCount")
		p.restarts += count
		finished := terminatedAt(cs)
		p.lastRestart = later(p.lastRestart, finished)
		isSidecar := sidecar[atStr(cs, "name")]
		if isSidecar {
			p.sidecarRestarts += count
			p.lastSidecarRestart = later(p.lastSidecarRestart, finished)
		}
		term := atObj(cs, "state", "terminated")
		exit, _ := atInt(term, "exitCode")
		waiting := atStr(cs, "state", "waiting", "reason")
		switch {
		case term != nil && exit == 0:
			continue
		case isSidecar && at(cs, "started") == true:
			if at(cs, "ready") == true {
				p.ready++
			}
			continue
		case term != nil:
			p.reason = "Init:" + terminatedReason(term)
		case waiting != "" && waiting != "PodInitializing":
			p.reason = "Init:" + waiting
		default:
			p.reason = fmt.Sprintf("Init:%d/%d", i, n)
		}
		return true
	}
	return false
}

// terminatedReason is a terminated state's reason, or its signal, or its
// exit code.
func terminatedReason(term obj) string {
	exit, _ := atInt(term, "exitCode")
	if r := atStr(term, "reason"); r != "" {
		return r
	} else if sig, _ := atInt(term, "signal"); sig != 0 {
		return fmt.Sprintf("Signal:%d", sig)
	}
	return fmt.Sprintf("ExitCode:%d", exit)
}

// containers counts the restarts of the sidecars and the containers and
// the ready running containers, and sets the reason from the containers'
// states, the first container's last, as kubectl reads them backwards.
func (p *podRow) containers(statuses []obj, conditions []obj) {
	p.restarts, p.lastRestart = p.sidecarRestarts, p.lastSidecarRestart
	hasRunning := false
	errorReason := ""
	for i := len(statuses) - 1; i >= 0; i-- {
		cs := statuses[i]
		n, _ := atInt(cs, "restartCount")
		p.restarts += n
		p.lastRestart = later(p.lastRestart, terminatedAt(cs))
		term := atObj(cs, "state", "terminated")
		switch {
		case atStr(cs, "state", "waiting", "reason") != "":
			p.reason = atStr(cs, "state", "waiting", "reason")
		case term != nil:
			p.reason = terminatedReason(term)
			if exit, _ := atInt(term, "exitCode"); exit != 0 {
				errorReason = p.reason
			}
		case at(cs, "ready") == true && atObj(cs, "state", "running") != nil:
			hasRunning = true
			p.ready++
		}
	}
	if p.reason == "Completed" {
		switch {
		case hasRunning && conditionTrue(conditions, "Ready"):
			p.reason = "Running"
		case errorReason != "":
			p.reason = errorReason
		case hasRunning:
			p.reason = "NotReady"
		}
	}
}

// restartCell is RESTARTS: the count, with the time since the last
// restart when there was one.
func (p *podRow) restartCell(now time.Time) string {
	if p.restarts != 0 && !p.lastRestart.IsZero() {
		return fmt.Sprintf("%d (%s ago)", p.restarts, humanDuration(now.Sub(p.lastRestart)))
	}
	return strconv.FormatInt(p.restarts, 10)
}

// podIP is IP: the first of status.podIPs.
func podIP(status obj) string {
	if ips := atList(status, "podIPs"); len(ips) > 0 && atStr(ips[0], "ip") != "" {
		return atStr(ips[0], "ip")
	}
	return "<none>"
}

// readinessGates is READINESS GATES: how many of the spec's gates have a
// True condition, of how many.
func readinessGates(spec obj, conditions []obj) string {
	rg := atList(spec, "readinessGates")
	if len(rg) == 0 {
		return "<none>"
	}
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
	return fmt.Sprintf("%d/%d", trueGates, len(rg))
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
