#!/usr/bin/env bash
# bench-10m.sh: how a server holds up with a large keyspace. Loads KEYS string
# keys (key:%012d -> 3 bytes, the names valkey-benchmark uses), then measures
# GET throughput and latency percentiles with valkey-benchmark, alone and while
# another valkey-benchmark adds new keys (which makes a garbage-collected
# server collect over the whole keyspace). For HotKV it reports the collector's
# share of the server's CPU and its longest stop-the-world pause in each phase,
# from GODEBUG=gctrace=1.
#
# Environment (defaults in brackets):
#   SERVER     hotkv, redis or valkey                  [hotkv]
#   SETTING    pinned (server core 0, GOMAXPROCS=1, load core 1) or free [free]
#   KEYS       keys to load                            [10000000]
#   SECS       seconds per measured phase              [10]
#   LONG       seconds of a last GET phase, long enough to span the Go
#              runtime's forced collection (every 2 minutes); 0 skips it [150]
#   PORT       TCP port                                [17480]
#   PEERS_DIR, INSTALLER, HOTKV_BIN as for bench-peers.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVER=${SERVER:-hotkv}
SETTING=${SETTING:-free}
KEYS=${KEYS:-10000000}
SECS=${SECS:-10}
LONG=${LONG:-150}
PORT=${PORT:-17480}
PEERS_DIR=${PEERS_DIR:-$HOME/.hotkv-peers}

die() { echo "bench-10m: $*" >&2; exit 1; }
log() { echo "bench-10m: $*" >&2; }

# shellcheck source=peers.sh
source "$ROOT/scripts/peers.sh"
ensure_peers
BIN=$PEERS_DIR/bin
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-10m.XXXXXX")
PID=
cleanup() {
	[[ -n $PID ]] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
	rm -rf "$WORK"
}
trap cleanup EXIT

SRV_PIN=() LOAD_PIN=()
[[ $SETTING == pinned ]] && SRV_PIN=(taskset -c 0) LOAD_PIN=(taskset -c 1)
case $SERVER in
hotkv)
	if [[ -n ${HOTKV_BIN:-} ]]; then HOTKV=$HOTKV_BIN; else
		(cd "$ROOT" && go build -o "$WORK/hotkv" ./cmd/hotkv)
		HOTKV=$WORK/hotkv
	fi
	GMP=()
	[[ $SETTING == pinned ]] && GMP=(GOMAXPROCS=1)
	env "${GMP[@]}" GODEBUG=gctrace=1 "${SRV_PIN[@]}" "$HOTKV" --port "$PORT" --loglevel warning 2>"$WORK/server.log" &
	;;
redis) "${SRV_PIN[@]}" "$BIN/redis8-server" --port "$PORT" --save '' --appendonly no >"$WORK/server.log" 2>&1 & ;;
valkey) "${SRV_PIN[@]}" "$BIN/valkey-server" --port "$PORT" --save '' --appendonly no >"$WORK/server.log" 2>&1 & ;;
*) die "unknown SERVER $SERVER" ;;
esac
PID=$!
cli() { "$BIN/valkey-cli" -p "$PORT" "$@"; }
for ((i = 0; i < 100; i++)); do [[ $(cli ping 2>/dev/null) == PONG ]] && break; sleep 0.1; done
[[ $(cli ping 2>/dev/null) == PONG ]] || { cat "$WORK/server.log" >&2; die "$SERVER did not start"; }

ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$PID/stat"; }
HZ=$(getconf CLK_TCK)
mark() { MARK_LINES=$(wc -l <"$WORK/server.log"); MARK_TICKS=$(ticks); MARK_T=$(date +%s.%N); }
# gcsince: GC cycles since mark, their CPU share of the server's CPU, longest pause
gcsince() {
	local cpu_ms
	cpu_ms=$(awk -v t0="$MARK_TICKS" -v t1="$(ticks)" -v hz="$HZ" 'BEGIN { print (t1 - t0) / hz * 1000 }')
	tail -n +"$((MARK_LINES + 1))" "$WORK/server.log" | awk -v cpu="$cpu_ms" '
		/^gc [0-9]+ @/ {
			n++
			for (i = 1; i <= NF; i++) {
				if ($(i + 1) == "ms" && $(i + 2) == "clock,") { split($i, c, "+"); p = c[1] > c[3] ? c[1] : c[3]; if (p > max) max = p }
				if ($(i + 1) == "ms" && $(i + 2) == "cpu,") { gsub("/", "+", $i); k = split($i, u, "+"); for (j = 1; j <= k; j++) gc += u[j] }
			}
		}
		END { printf "%d GC cycles, GC %.1f%% of server CPU (%.0f of %.0f ms), longest pause %.3f ms", n, (cpu > 0 ? 100 * gc / cpu : 0), gc, cpu, max }'
}
elapsed() { awk -v t0="$MARK_T" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }

echo "# $SERVER with $KEYS keys ($SETTING)"
echo
echo "- machine: $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }'), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"

# Load: a RESP stream of SETs through valkey-cli --pipe.
log "loading $KEYS keys"
mark
awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$3\r\nxxx\r\n", i }' |
	"${LOAD_PIN[@]}" "$BIN/valkey-cli" -p "$PORT" --pipe >"$WORK/pipe.out" 2>&1 || { cat "$WORK/pipe.out" >&2; die "load failed"; }
echo "- load: $(cli dbsize) keys in $(elapsed) s; $([[ $SERVER == hotkv ]] && gcsince)"
mem=$(cli info memory | tr -d '\r')
field() { awk -F: -v k="$1" '$1 == k { print $2 }' <<<"$mem"; }
echo "- memory: used_memory $(field used_memory_human), rss $(field used_memory_rss_human)$([[ $SERVER == hotkv ]] && echo ", heap objects $(field heap_objects)")"

bench() { # secs label args... : one valkey-benchmark run of about secs seconds
	local secs=$1 label=$2 n
	shift 2
	# size the run from a short probe
	n=$("${LOAD_PIN[@]}" "$BIN/valkey-benchmark" -p "$PORT" -c 50 -n 50000 -r "$KEYS" -q --csv "$@" 2>/dev/null | awk -F'"' -v s="$secs" 'NF > 4 && $2 != "test" { printf "%d", $4 * s }')
	mark
	"${LOAD_PIN[@]}" "$BIN/valkey-benchmark" -p "$PORT" -c 50 -n "$n" -r "$KEYS" -q --csv "$@" >"$WORK/b.csv" 2>/dev/null
	awk -F'"' -v l="$label" 'NF > 4 && $2 != "test" { printf "| %s | %d | %s | %s | %s | %s |", l, $4, $10, $12, $14, $16 }' "$WORK/b.csv"
	if [[ $SERVER == hotkv ]]; then echo " $(gcsince) |"; else echo " - |"; fi
}
echo
echo "| phase | ops/s | p50 ms | p95 ms | p99 ms | max ms | garbage collector |"
echo "|---|---:|---:|---:|---:|---:|---|"
bench "$SECS" "GET, pipeline 1" GET 'key:__rand_int__'
bench "$SECS" "GET, pipeline 16" -P 16 GET 'key:__rand_int__'
# GETs while new keys arrive: allocation makes the collector mark all keys.
"${LOAD_PIN[@]}" "$BIN/valkey-benchmark" -p "$PORT" -c 10 -P 16 -n 100000000 -r $((KEYS * 10)) -q SET 'new:__rand_int__' xxx >/dev/null 2>&1 &
writer=$!
sleep 1
bench "$SECS" "GET, pipeline 1, while SET adds keys" GET 'key:__rand_int__'
kill "$writer" 2>/dev/null || true
wait "$writer" 2>/dev/null || true
((LONG > 0)) && bench "$LONG" "GET, pipeline 1, ${LONG} s" GET 'key:__rand_int__'
echo
echo "- keys at the end: $(cli dbsize)"
[[ -n ${DEBUG_LOG:-} ]] && cat "$WORK/server.log" >&2
