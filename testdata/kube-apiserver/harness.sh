#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds, starts and stops a real kube-apiserver (with an embedded etcd) and
# a kube-controller-manager beside it on loopback for kubeloop's integration
# tests, of the Kubernetes version KUBE_VERSION.
#
#   harness.sh build              build .bin/VERSION/kube-apiserver, kube-controller-manager and
#                                 kubectl (Go caches make rebuilds fast)
#   harness.sh start DIR [-- ARG...]  start it with state in DIR, wait for /readyz,
#                                 write DIR/admin.kubeconfig, DIR/denied.kubeconfig, DIR/env;
#                                 ARGs go to kube-apiserver after the defaults; then start
#                                 kube-controller-manager beside it and wait for its
#                                 garbage collector to sync
#   harness.sh stop DIR           stop the processes recorded in DIR/kcm.pid and DIR/pid
#   harness.sh run -- CMD ARG...  build, start in a temporary DIR, run CMD with DIR/env
#                                 exported, stop; exits with CMD's status
#   harness.sh versions           print the versions it builds, one a line, newest first
#   harness.sh matrix -- CMD ARG... run CMD (as run does) on every version, oldest first, each
#                                 whatever the others gave; print each status; exit 1 if any failed
#
# Environment: KUBE_VERSION (1.MINOR.PATCH, default go.mod's k8s.io/kubernetes;
# go.mod builds the newest, versions/v1.MINOR.mod the older minors; harness.sh
# versions lists them), KUBELOOP_HARNESS_READY_TIMEOUT (seconds to wait for /readyz
# and for the garbage collector, default 120), KUBELOOP_HARNESS_KEEP=1 (run
# keeps its DIR; it always keeps it when CMD fails),
# KUBELOOP_HARNESS_CONTROLLERS (kube-controller-manager's --controllers,
# default garbage-collector-controller,namespace-controller; empty: no
# kube-controller-manager, the API server alone).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
READY_TIMEOUT=${KUBELOOP_HARNESS_READY_TIMEOUT:-120}
CONTROLLERS=${KUBELOOP_HARNESS_CONTROLLERS-garbage-collector-controller,namespace-controller}
STOP_TIMEOUT=30

log() { printf 'harness: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# kubernetes_version MODFILE: the k8s.io/kubernetes version MODFILE requires,
# without its v (read from the file: no go command, no network).
kubernetes_version() {
	awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { sub(/^v/, "", $2); print $2; exit }' "$1"
}

# modfiles: go.mod (the newest) then versions/v1.MINOR.mod, newest first.
modfiles() {
	echo "$HERE/go.mod"
	ls "$HERE"/versions/v1.*.mod 2>/dev/null | sort -t. -k2,2nr
}

cmd_versions() {
	(($# == 0)) || usage
	local f
	for f in $(modfiles); do kubernetes_version "$f"; done
}

# select_version: set VERSION, MINOR, MODFILE (the one that requires
# k8s.io/kubernetes vVERSION), GATES and the binaries' paths from
# KUBE_VERSION.
select_version() {
	local f
	VERSION=${KUBE_VERSION:-$(kubernetes_version "$HERE/go.mod")}
	VERSION=${VERSION#v}
	MODFILE=
	for f in $(modfiles); do
		[[ $(kubernetes_version "$f") == "$VERSION" ]] && MODFILE=$f && break
	done
	[[ -n $MODFILE ]] || die "KUBE_VERSION=$VERSION: no go.mod or versions/v1.MINOR.mod requires k8s.io/kubernetes v$VERSION; it builds: $(cmd_versions | tr '\n' ' ')"
	MINOR=${VERSION#1.}
	MINOR=${MINOR%%.*}
	# The feature gates kubeloop's suite needs that are off by default in
	# this minor. A gate a version does not know makes kube-apiserver refuse
	# to start, so each minor names its own.
	case $MINOR in
	33) GATES=WatchList=true ;; # beta and off in 1.33 only: lists with sendInitialEvents answer 422 without it
	36 | 37) GATES=ShardedListAndWatch=true ;; # alpha since 1.36 (KEP-5866): shardSelector
	*) die "KUBE_VERSION=$VERSION: harness.sh names no feature gates for 1.$MINOR (see select_version)" ;;
	esac
	BIN=$HERE/.bin/$VERSION/kube-apiserver
	KCM=$HERE/.bin/$VERSION/kube-controller-manager
	KUBECTL=$HERE/.bin/$VERSION/kubectl
}

usage() {
	sed -n '4,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

cmd_build() {
	(($# == 0)) || usage
	local start=$SECONDS pkg ldflags=""
	# /version reports what the linker stamps: take it from the modfile so the
	# two never disagree.
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X $pkg.gitVersion=v$VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR -X $pkg.gitTreeState=clean"
	done
	log "building $BIN, $KCM and $KUBECTL (v$VERSION from ${MODFILE#"$HERE"/})"
	# One go build for the three: they share most packages, and one command
	# schedules their compilation together. kube-controller-manager and
	# kubectl are tools of the module (go.mod's tool lines), so they build
	# from the same versions.
	# -modfile reads go.sum beside it (versions/v1.MINOR.sum).
	(cd "$HERE" && GOWORK=off go build -modfile="$MODFILE" -buildvcs=false -ldflags="$ldflags" -o "$HERE/.bin/$VERSION/" . \
		k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl)
	log "built in $((SECONDS - start))s"
}

# running PID [NAME]: true while PID is a live (not zombie) process of the
# binary NAME (default kube-apiserver), so that a stale pid file never makes
# us signal an unrelated process.
running() {
	local pid=$1 name=${2:-kube-apiserver} state ppid argv0
	[[ $pid =~ ^[0-9]+$ && -r /proc/$pid/stat ]] || return 1
	read -r state ppid _ < <(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]] || return 1
	# A child of this shell is the process it started: its pid cannot have
	# been reused while it is not reaped. Between fork and exec it is still
	# a copy of this shell, then nohup, then NAME; on a busy machine a check
	# can come at any of these.
	[[ $ppid == "$$" ]] && return 0
	argv0=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1)
	[[ $argv0 == */$name || $argv0 == nohup || $argv0 == */nohup ]]
}

token() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }

# kubeconfig FILE SERVER CA USER TOKEN
kubeconfig() {
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: harness
  cluster:
    server: $2
    certificate-authority: $3
users:
- name: $4
  user:
    token: $5
contexts:
- name: harness
  context:
    cluster: harness
    user: $4
    namespace: default
current-context: harness
EOF
}

# launch DIR ARG...: start the binary in the background on fresh ports and
# wait until it is ready. Returns 3 if it died because a port was taken.
launch() {
	local dir=$1
	shift
	local ports secure etcd peer admin denied pid server
	# Called in an `||` list, where set -e is off: check each step.
	ports=$("$BIN" -pick-ports 3) || return 1
	{ read -r secure && read -r etcd && read -r peer; } <<<"$ports" || return 1
	admin=$(token) && denied=$(token) || return 1
	server=https://127.0.0.1:$secure

	rm -rf "$dir/etcd" "$dir/certs" || return 1
	nohup "$BIN" -dir "$dir" -secure-port "$secure" -etcd-port "$etcd" -etcd-peer-port "$peer" \
		-admin-token "$admin" -denied-token "$denied" -- --feature-gates="$GATES" "$@" \
		>"$dir/apiserver.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/pid"

	local start=$SECONDS
	until curl -skf --max-time 5 -H "Authorization: Bearer $admin" "$server/readyz" >/dev/null 2>&1; do
		if ! running "$pid"; then
			grep -q 'address already in use' "$dir/apiserver.log" && return 3
			log "kube-apiserver exited before it was ready; last lines of $dir/apiserver.log:"
			tail -n 50 "$dir/apiserver.log" >&2
			return 1
		fi
		if ((SECONDS - start >= READY_TIMEOUT)); then
			log "kube-apiserver not ready after ${READY_TIMEOUT}s; last lines of $dir/apiserver.log:"
			tail -n 50 "$dir/apiserver.log" >&2
			cmd_stop "$dir"
			return 1
		fi
		sleep 0.5
	done
	log "ready in $((SECONDS - start))s at $server (pid $pid)"

	local ca=$dir/certs/apiserver.crt
	kubeconfig "$dir/admin.kubeconfig" "$server" "$ca" admin "$admin" &&
		kubeconfig "$dir/denied.kubeconfig" "$server" "$ca" denied "$denied" &&
		cat >"$dir/env" <<EOF || return 1
export KUBELOOP_KUBECONFIG='$dir/admin.kubeconfig'
export KUBELOOP_DENIED_KUBECONFIG='$dir/denied.kubeconfig'
export KUBELOOP_SERVER='$server'
export KUBELOOP_TOKEN='$admin'
export KUBELOOP_DENIED_TOKEN='$denied'
export KUBELOOP_CA_FILE='$ca'
export KUBELOOP_KUBECTL='$KUBECTL'
export KUBELOOP_CONTROLLERS='$CONTROLLERS'
export KUBELOOP_KUBE_VERSION='$VERSION'
EOF
}

cmd_start() {
	(($# >= 1)) || usage
	local dir=$1
	shift
	if (($# > 0)); then
		[[ $1 == -- ]] || usage
		shift
	fi
	[[ -x $BIN && -x $KCM && -x $KUBECTL ]] || die "$BIN, $KCM or $KUBECTL is missing: run $0 build"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if [[ -f $dir/pid ]] && running "$(cat "$dir/pid")"; then
		die "already running in $dir (pid $(cat "$dir/pid"))"
	fi
	if [[ -f $dir/kcm.pid ]] && running "$(cat "$dir/kcm.pid")" kube-controller-manager; then
		die "kube-controller-manager already running in $dir (pid $(cat "$dir/kcm.pid"))"
	fi

	local attempt rc
	for attempt in 1 2 3; do
		rc=0
		launch "$dir" "$@" || rc=$?
		((rc == 3)) || break
		log "a picked port was taken before kube-apiserver bound it; retrying ($attempt)"
	done
	if ((rc != 0)); then
		((rc != 3)) || tail -n 50 "$dir/apiserver.log" >&2
		rm -f "$dir/pid"
		exit 1
	fi
	if [[ -n $CONTROLLERS ]] && ! launch_kcm "$dir"; then
		cmd_stop "$dir"
		exit 1
	fi
	log "kubeconfigs: $dir/admin.kubeconfig $dir/denied.kubeconfig"
	log "environment: . $dir/env"
}

# terminate FILE NAME: stop the NAME process recorded in FILE, TERM then
# KILL after STOP_TIMEOUT, and remove FILE.
terminate() {
	local file=$1 name=$2 pid
	[[ -f $file ]] || return 0
	pid=$(cat "$file")
	if running "$pid" "$name"; then
		kill -TERM "$pid" 2>/dev/null || true
		local start=$SECONDS
		while running "$pid" "$name" && ((SECONDS - start < STOP_TIMEOUT)); do
			sleep 0.2
		done
		if running "$pid" "$name"; then
			log "$name (pid $pid) still running after ${STOP_TIMEOUT}s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true # reap it when it is our child (run)
	rm -f "$file"
	log "stopped $name (pid $pid)"
}

cmd_stop() {
	(($# == 1)) || usage
	local dir=$1
	[[ -f $dir/pid || -f $dir/kcm.pid ]] || { log "nothing to stop in $dir"; return 0; }
	# The controller manager first, so that it never sees its server go.
	terminate "$dir/kcm.pid" kube-controller-manager
	terminate "$dir/pid" kube-apiserver
}

# launch_kcm DIR: start kube-controller-manager with the controllers of
# CONTROLLERS against the server of DIR/admin.kubeconfig, and wait until its
# garbage collector has synced its informers (so that a test's first
# deletion is collected).
launch_kcm() {
	local dir=$1 pid
	# --secure-port=0: no serving port to pick or to collide on; the
	# controllers need none. No leader election: it is the only one.
	nohup "$KCM" --kubeconfig="$dir/admin.kubeconfig" --controllers="$CONTROLLERS" \
		--leader-elect=false --secure-port=0 --use-service-account-credentials=false \
		>"$dir/controller-manager.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/kcm.pid"
	[[ ,$CONTROLLERS, == *,garbage-collector-controller,* ]] || { log "kube-controller-manager started (pid $pid)"; return 0; }
	local start=$SECONDS
	until grep -q 'Garbage collector: .*resource monitors' "$dir/controller-manager.log" 2>/dev/null; do
		if ! running "$pid" kube-controller-manager; then
			log "kube-controller-manager exited before its garbage collector synced; last lines of $dir/controller-manager.log:"
			tail -n 50 "$dir/controller-manager.log" >&2
			return 1
		fi
		if ((SECONDS - start >= READY_TIMEOUT)); then
			log "kube-controller-manager's garbage collector not synced after ${READY_TIMEOUT}s; last lines of $dir/controller-manager.log:"
			tail -n 50 "$dir/controller-manager.log" >&2
			return 1
		fi
		sleep 0.5
	done
	log "kube-controller-manager ($CONTROLLERS) synced in $((SECONDS - start))s (pid $pid)"
}

cmd_run() {
	[[ ${1:-} == -- ]] || usage
	shift
	(($# >= 1)) || usage
	cmd_build
	# CMD's own harness.sh calls (a second server) build and start the same.
	export KUBE_VERSION=$VERSION
	RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kubeloop-apiserver.XXXXXX")
	# EXIT covers normal ends and errors; INT and TERM become exits so that
	# the EXIT trap runs for them too.
	trap 'cleanup $?' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cmd_start "$RUN_DIR"
	# shellcheck source=/dev/null
	. "$RUN_DIR/env"
	# In the background so that a TERM sent to this script alone runs the
	# traps now rather than after CMD ends; <&0 keeps CMD's stdin.
	local status=0
	"$@" <&0 &
	CMD_PID=$!
	wait "$CMD_PID" || status=$?
	CMD_PID=
	exit "$status"
}

cmd_matrix() {
	[[ ${1:-} == -- ]] || usage
	shift
	(($# >= 1)) || usage
	local v status failed=0 summary=()
	for v in $(cmd_versions | sort -t. -k2,2n); do
		log "matrix: $v"
		status=0
		KUBE_VERSION=$v "${BASH_SOURCE[0]}" run -- "$@" || status=$?
		summary+=("$v exit $status")
		((status == 0)) || failed=1
	done
	printf 'harness: matrix: %s\n' "${summary[@]}" >&2
	return "$failed"
}

# cleanup STATUS: stop CMD if a signal cut it short, and the servers; keep
# the directory for a look at apiserver.log and controller-manager.log when
# something failed.
cleanup() {
	if [[ -n ${CMD_PID:-} ]]; then
		kill -TERM "$CMD_PID" 2>/dev/null || true
		wait "$CMD_PID" 2>/dev/null || true
	fi
	cmd_stop "$RUN_DIR" || true
	if [[ $1 == 0 && ${KUBELOOP_HARNESS_KEEP:-} != 1 ]]; then
		rm -rf "$RUN_DIR"
	else
		log "kept $RUN_DIR (apiserver.log, controller-manager.log, kubeconfigs, env)"
	fi
}

[[ ${1:-} == versions || ${1:-} == matrix ]] || select_version
case ${1:-} in
versions) shift; cmd_versions "$@" ;;
matrix) shift; cmd_matrix "$@" ;;
build) shift; cmd_build "$@" ;;
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
run) shift; cmd_run "$@" ;;
*) usage ;;
esac
