#!/bin/bash
# Persistence benchmarks (docs/bench/persistence.md).
#   scripts/bench-persistence.sh throughput   SET, 50 clients, pipeline 1 and 16,
#                                             persistence off / appendfsync everysec / always
#   scripts/bench-persistence.sh snapshot     1M keys: BGSAVE time, peak extra RSS, restart load time
# SERVERS="hotkv valkey redis8" picks the servers (peers from /root/.hotkv-peers/bin).
set -u
B=${PEERS:-/root/.hotkv-peers/bin}
HK=$(mktemp -d)/hotkv
go build -o "$HK" ./cmd/hotkv || exit 1

serve() { # srv port args...
	local srv=$1 port=$2
	shift 2
	case $srv in
	hotkv) "$HK" --port "$port" "$@" & ;;
	redis8) "$B/redis8-server" --port "$port" "$@" & ;;
	valkey) "$B/valkey-server" --port "$port" "$@" & ;;
	esac
	pid=$!
	until redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; do sleep 0.05; done
}

throughput() {
	for P in 1 16; do for mode in off everysec always; do for srv in ${SERVERS:-hotkv valkey redis8}; do
		n=300000
		[ "$P" = 16 ] && n=1000000
		[ "$mode" = always ] && { [ "$P" = 1 ] && n=30000 || n=200000; }
		port=$((20000 + RANDOM % 20000)) d=$(mktemp -d)
		opts=(--save "" --dir "$d" --loglevel warning)
		if [ "$mode" = off ]; then opts+=(--appendonly no); else opts+=(--appendonly yes --appendfsync "$mode"); fi
		serve "$srv" "$port" "${opts[@]}" >/dev/null 2>&1
		r=$("$B/valkey-benchmark" -p "$port" -t set -c 50 -P "$P" -n "$n" -r 100000 -d 16 --csv -q 2>/dev/null | grep SET | cut -d, -f2 | tr -d '"')
		echo "$srv,$mode,P$P,$r"
		kill "$pid"; wait "$pid" 2>/dev/null; rm -rf "$d"
	done; done; done
}

rss() { # the server and its children (a forked BGSAVE), in kB
	local t=0 p
	for p in $pid $(pgrep -P "$pid"); do t=$((t + $(awk '/VmRSS/{print $2}' /proc/"$p"/status 2>/dev/null || echo 0))); done
	echo $t
}

snapshot() {
	local keys=${KEYS:-1000000} f
	f=$(mktemp)
	python3 -c "
import sys
w=sys.stdout.buffer
for i in range($keys):
    k=b'key:%d'%i; v=b'value-%010d'%i
    w.write(b'*3\r\n\$3\r\nSET\r\n\$%d\r\n%s\r\n\$%d\r\n%s\r\n'%(len(k),k,len(v),v))" >"$f"
	for srv in ${SERVERS:-hotkv valkey redis8}; do
		port=$((20000 + RANDOM % 20000)) d=$(mktemp -d)
		serve "$srv" "$port" --dir "$d" --save "" >"$d/log" 2>&1
		redis-cli -p "$port" --pipe <"$f" >/dev/null
		base=$(rss) peak=$base t0=$(date +%s.%N)
		redis-cli -p "$port" bgsave >/dev/null
		while :; do
			r=$(rss); [ "$r" -gt "$peak" ] && peak=$r
			redis-cli -p "$port" info persistence | grep -q "rdb_bgsave_in_progress:0" && break
			sleep 0.02
		done
		t1=$(date +%s.%N)
		echo "$srv: $(redis-cli -p "$port" dbsize) keys, BGSAVE $(echo "$t1 - $t0" | bc) s, RSS $((base / 1024)) MB, peak extra $(((peak - base) / 1024)) MB, file $(du -m "$d/dump.rdb" | cut -f1) MB"
		kill "$pid"; wait "$pid" 2>/dev/null
		t0=$(date +%s.%N)
		serve "$srv" "$port" --dir "$d" --save "" >>"$d/log" 2>&1
		t1=$(date +%s.%N)
		echo "$srv: restart until PONG $(echo "$t1 - $t0" | bc) s, $(redis-cli -p "$port" dbsize) keys"
		kill "$pid"; wait "$pid" 2>/dev/null; rm -rf "$d"
	done
	rm -f "$f"
}

"${1:-throughput}"
