#!/usr/bin/env bash
# bench-evict.sh: a cache at its memory limit. Each server runs with maxmemory
# and an eviction policy, is filled past the limit with SETs of random keys
# from a keyspace far larger than fits, then measured while every new key
# evicts an old one: SET throughput and server CPU per request (median of
# RUNS runs), and afterwards how many keys the limit holds and the memory the
# server reports and the OS sees.
#
# Environment (defaults in brackets):
#   SERVERS    servers to run, in order                [hotkv redis valkey]
#   MAXMEM     maxmemory                               [64mb]
#   POLICY     maxmemory-policy                        [allkeys-lru]
#   SIZE       value bytes                             [100]
#   PIPELINE   valkey-benchmark -P                     [16]
#   N          requests per measured run               [1000000]
#   RUNS       measured runs                           [3]
#   PORT       TCP port                                [17490]
#   PEERS_DIR, INSTALLER, HOTKV_BIN as for bench-peers.sh
#
# Server on core 0 (HotKV with GOMAXPROCS=1), valkey-benchmark on core 1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVERS=${SERVERS:-hotkv redis valkey}
MAXMEM=${MAXMEM:-64mb}
POLICY=${POLICY:-allkeys-lru}
SIZE=${SIZE:-100}
PIPELINE=${PIPELINE:-16}
N=${N:-1000000}
RUNS=${RUNS:-3}
PORT=${PORT:-17490}
PEERS_DIR=${PEERS_DIR:-$HOME/.hotkv-peers}

die() { echo "bench-evict: $*" >&2; exit 1; }
log() { echo "bench-evict: $*" >&2; }

# shellcheck source=peers.sh
source "$ROOT/scripts/peers.sh"
ensure_peers
BIN=$PEERS_DIR/bin
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-evict.XXXXXX")
PID=
cleanup() {
	[[ -n $PID ]] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
	rm -rf "$WORK"
}
trap cleanup EXIT
if [[ -n ${HOTKV_BIN:-} ]]; then HOTKV=$HOTKV_BIN; else
	(cd "$ROOT" && go build -o "$WORK/hotkv" ./cmd/hotkv)
	HOTKV=$WORK/hotkv
fi
HZ=$(getconf CLK_TCK)
KEYSPACE=100000000 # far more than fits: nearly every SET adds a key

cli() { "$BIN/valkey-cli" -p "$PORT" "$@"; }
info() { cli info "$1" | tr -d '\r' | awk -F: -v f="$2" '$1 == f { print $2 }'; }
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
setload() { # n -> ops/s, sets US (server µs per request)
	local t0 t1 out
	t0=$(ticks "$PID")
	out=$(taskset -c 1 "$BIN/valkey-benchmark" -p "$PORT" -c 50 -P "$PIPELINE" -n "$1" -r "$KEYSPACE" -d "$SIZE" -t set -q --csv 2>/dev/null)
	t1=$(ticks "$PID")
	US=$(awk -v d=$((t1 - t0)) -v hz="$HZ" -v n="$1" 'BEGIN { printf "%.2f", d / hz * 1e6 / n }')
	awk -F'"' 'NF > 4 && $2 != "test" { printf "%d\n", $4 }' <<<"$out" | tail -1
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "| server | SET ops/s | server µs/op | keys held | evicted | used_memory | RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for server in $SERVERS; do
	args=(--port "$PORT" --maxmemory "$MAXMEM" --maxmemory-policy "$POLICY")
	case $server in
	hotkv) GOMAXPROCS=1 taskset -c 0 "$HOTKV" "${args[@]}" --loglevel warning >"$WORK/log" 2>&1 & ;;
	redis) taskset -c 0 "$BIN/redis8-server" "${args[@]}" --save '' --appendonly no >"$WORK/log" 2>&1 & ;;
	valkey) taskset -c 0 "$BIN/valkey-server" "${args[@]}" --save '' --appendonly no >"$WORK/log" 2>&1 & ;;
	*) die "unknown server $server" ;;
	esac
	PID=$!
	for _ in $(seq 100); do [[ $(cli ping 2>/dev/null) == PONG ]] && break; sleep 0.1; done
	# Fill to the limit and past it, so the measured runs all evict.
	while [[ $(info stats evicted_keys) == 0 ]]; do setload 200000 >/dev/null; done
	setload "$N" >/dev/null
	rs=() us=()
	for ((r = 1; r <= RUNS; r++)); do
		rs+=("$(setload "$N")")
		us+=("$US")
		log "$server run $r: ${rs[-1]} ops/s, $US µs/op"
	done
	sleep 1 # a last tick's evictions
	echo "| $server | $(median "${rs[@]}") | $(median "${us[@]}") | $(cli dbsize) | $(info stats evicted_keys) | $(info memory used_memory_human) | $(info memory used_memory_rss_human) |"
	kill "$PID"
	wait "$PID" 2>/dev/null || true
	PID=
done
echo
echo "maxmemory $MAXMEM, $POLICY; valkey-benchmark -t set -d $SIZE -r $KEYSPACE -c 50 -P $PIPELINE -n $N, $RUNS runs (median); server on core 0, load on core 1"
