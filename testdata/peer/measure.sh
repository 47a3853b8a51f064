#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Measures kubeloop beside client-go and controller-runtime on a real
# kube-apiserver (see README.md). Run it on a quiet machine:
#
#   testdata/peer/measure.sh [-n N] [-r R] [-only sync|write] [-out DIR]
#
#   -n N      ConfigMaps of 1 KiB to seed in namespace peer (default 50000)
#   -r R      rounds: every program runs R times, alternated (default 4)
#   -only W   run the sync or the write measurements alone (default both)
#   -out DIR  where to write results.jsonl, table.txt and the programs'
#             stderr (default a new directory under ${TMPDIR:-/tmp})
#
# Without KUBELOOP_KUBECONFIG set it runs itself under
# testdata/kube-apiserver/harness.sh run, which builds (or reuses) the
# server, starts it, and stops it at the end; with it set, it uses that
# server. Each program is built once, then runs as a process of its own.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=50000 ROUNDS=4 ONLY= OUT=
args=("$@")
while (($# > 0)); do
	case $1 in
	-n) N=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-only) ONLY=$2; shift 2 ;;
	-out) OUT=$2; shift 2 ;;
	*) sed -n '4,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[[ $N =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "measure: -n and -r take positive integers" >&2; exit 2; }
[[ -z $ONLY || $ONLY == sync || $ONLY == write ]] || { echo "measure: -only takes sync or write, not $ONLY" >&2; exit 2; }

log() { printf 'measure: %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# The load before anything starts, taken once (not again under the harness).
if [[ -z ${KUBELOOP_PEER_LOAD_BEFORE:-} ]]; then
	export KUBELOOP_PEER_LOAD_BEFORE=$(load)
	if awk -v n="$(nproc)" '{ exit !($1 > 0.25 * n) }' /proc/loadavg; then
		log "WARNING: load average $KUBELOOP_PEER_LOAD_BEFORE on $(nproc) CPUs: this machine is not quiet, the numbers will not mean much"
	fi
fi

if [[ -z ${KUBELOOP_KUBECONFIG:-} ]]; then
	# No kube-controller-manager unless asked: its garbage collector
	# watches every kind, and would share the machine with the programs.
	export KUBELOOP_HARNESS_CONTROLLERS=${KUBELOOP_HARNESS_CONTROLLERS-}
	exec "$HERE/../kube-apiserver/harness.sh" run -- "$HERE/measure.sh" "${args[@]}"
fi
export KUBECONFIG=$KUBELOOP_KUBECONFIG

OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kubeloop-peer.XXXXXX")}
mkdir -p "$OUT"
BIN=$OUT/bin
RESULTS=$OUT/results.jsonl
: >"$RESULTS"

if [[ -n ${KUBELOOP_PEER_CPUPROFILE:-} ]]; then
	mkdir -p "$KUBELOOP_PEER_CPUPROFILE"
	log "CPU profiles to $KUBELOOP_PEER_CPUPROFILE: the profiler costs CPU, these numbers are not for comparing"
fi

# What the numbers depend on, kept beside them.
{
	echo "date: $(date -u +%FT%TZ)"
	echo "kubeloop: $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$HERE" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "go: $(go env GOVERSION); cpus: $(nproc); N=$N ConfigMaps, $ROUNDS rounds"
	echo "load average before: $KUBELOOP_PEER_LOAD_BEFORE (before the server started)"
} >"$OUT/machine.txt"

log "building the programs into $BIN"
(cd "$HERE" && GOWORK=off nice -n 10 go build -o "$BIN/" ./cmd/...)

# run NAME CMD...: runs one measurement process (bounded to 30 minutes),
# its JSON line appended to RESULTS and shown, its stderr kept in OUT.
run() {
	local name=$1 line
	shift
	if ! line=$(timeout 1800 "$@" 2>>"$OUT/$name.stderr"); then
		log "$* failed; the end of $OUT/$name.stderr:"
		tail -n 30 "$OUT/$name.stderr" >&2
		exit 1
	fi
	printf '%s\n' "$line" | tee -a "$RESULTS"
}

# settle: waits before a run until the server (kube-apiserver and its
# etcd, one process) has finished what the seeding or the last run made it
# do: until it used less than 5% of a CPU over a second, for at most 60
# seconds, so that no run pays for what came before it. Without the
# harness's pid file (a server of your own), a 3 second pause.
settle() {
	local pidfile pid hz a b i
	pidfile=$(dirname "$KUBELOOP_KUBECONFIG")/pid
	if ! { [[ -r $pidfile ]] && pid=$(cat "$pidfile") && [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/stat ]]; }; then
		sleep 3
		return
	fi
	hz=$(getconf CLK_TCK)
	for ((i = 0; i < 60; i++)); do
		a=$(ticks "$pid") && sleep 1 && b=$(ticks "$pid") || return 0
		if ((b - a < hz / 20)); then
			((i < 5)) || log "the server settled after $((i + 1))s"
			return 0
		fi
	done
	log "the server was still busy after 60s; measuring anyway"
}

# ticks PID: the user+system CPU time of PID so far, in clock ticks.
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

log "seeding $N ConfigMaps"
"$BIN/seed" -n "$N"

# Round r runs the programs in order starting at the r-th, so that none is
# always first or always after the same one.
if [[ -z $ONLY || $ONLY == sync ]]; then
	sync=(
		"sync-kubeloop -variant typed"
		"sync-kubeloop -variant typed-watchlist"
		"sync-kubeloop -variant metadata"
		"sync-clientgo -variant protobuf"
		"sync-clientgo -variant json"
		"sync-clientgo -variant metadata"
	)
	for ((r = 0; r < ROUNDS; r++)); do
		log "sync round $((r + 1)) of $ROUNDS"
		for ((i = 0; i < ${#sync[@]}; i++)); do
			read -r -a cmd <<<"${sync[(r + i) % ${#sync[@]}]}"
			settle
			run "${cmd[0]}" "$BIN/${cmd[0]}" "${cmd[@]:1}"
		done
	done
fi

if [[ -z $ONLY || $ONLY == write ]]; then
	write=(write-kubeloop write-controller-runtime)
	for ((r = 0; r < ROUNDS; r++)); do
		log "write round $((r + 1)) of $ROUNDS"
		for ((i = 0; i < ${#write[@]}; i++)); do
			prog=${write[(r + i) % ${#write[@]}]}
			"$BIN/seed" -n "$N" # removes the label the last run added
			settle
			run "$prog" "$BIN/$prog" -n "$N"
		done
	done
fi

echo "load average after: $(load)" >>"$OUT/machine.txt"
{ cat "$OUT/machine.txt"; echo; "$BIN/table" "$RESULTS"; } | tee "$OUT/table.txt"
log "results in $OUT (results.jsonl, table.txt, each program's stderr)"
