#!/usr/bin/env bash
# bench-peers.sh: HotKV side by side with Redis 8.0.2 and Valkey 8.1.1, measured
# with valkey-benchmark as docs/bench/history-2026-12-01.md describes (median of RUNS runs,
# ops/s, server CPU microseconds per operation, load-generator CPU).
#
# Settings:
#   pinned  server on core 0 (HotKV with GOMAXPROCS=1), valkey-benchmark on core 1
#   free    nothing pinned; Valkey with --io-threads 2, Redis default, HotKV all cores
#
# Everything is configurable through the environment (defaults in brackets):
#   SERVERS    servers to run                [hotkv redis valkey]
#   SETTINGS   settings to run               [pinned free]
#   PIPELINES  pipeline depths               [1 16]
#   COMMANDS   commands, lower case          [set get mget setnx append incr lpush rpush sadd hset mset ping]
#              also: echo exists type lrange_100 lpop rpop spop zadd eval xadd (lrange_100 reads the list
#              lpush/rpush leave; lpop, rpop and spop fill their own; the order
#              given is the order run)
#   RUNS       runs per point, median taken  [3]
#   SECS       target seconds per run        [1.5]
#   CLIENTS    connections                   [50]
#   KEYSPACE   -r random key range           [100000]
#   DATASIZE   value size in bytes           [3]
#   THREADS    valkey-benchmark threads      [1]
#   PORT       first TCP port to use         [17400]
#   OUT        also write the Markdown report here (NAME.md), the raw per-run CSV to
#              NAME.csv and, per setting, a JSON report for docs/benchmarks.md to
#              NAME-SETTING.json (hotkv-bench import-peers converts the CSV)
#   PEERS_DIR  where the peers live or get installed [~/.hotkv-peers]
#   INSTALLER  the peer installer            [../shared/peers/install.sh, searched upwards]
#   HOTKV_BIN  use this hotkv binary instead of building one
#   HOTKV_BASE_BIN  a second hotkv binary (say, main before a change), run as
#              server "hotkv-base" when SERVERS names it, interleaved like the others
#   QUICK=1    RUNS=1 SECS=0.7 COMMANDS="set get ping" unless set explicitly
#   TLS=1      every server serves TLS only (tls-port, a throwaway CA made with
#              openssl, no client certificates) and the load goes through TLS
#
# A command a server answers with "ERR unknown command" is reported as n/a.
# A run whose load generator used more than 85% of a core is marked "(cb NN%)":
# it is client-bound, so its figure is a floor for the server, not its limit.
set -euo pipefail
set -f # commands are split into words unquoted; XADD's * must stay a word

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The command line as the JSON report records it: the settings that differ
# from the defaults, then the script.
RUN_LINE=
for v in SERVERS SETTINGS PIPELINES COMMANDS RUNS SECS CLIENTS KEYSPACE DATASIZE THREADS QUICK TLS HOTKV_BIN HOTKV_BASE_BIN; do
	[[ -n ${!v:-} ]] && RUN_LINE+="$v=\"${!v}\" "
done
RUN_LINE+="scripts/bench-peers.sh"
if [[ ${QUICK:-0} == 1 ]]; then
	: "${RUNS:=1}" "${SECS:=0.7}" "${COMMANDS:=set get ping}"
fi
SERVERS=${SERVERS:-hotkv redis valkey}
SETTINGS=${SETTINGS:-pinned free}
PIPELINES=${PIPELINES:-1 16}
COMMANDS=${COMMANDS:-set get mget setnx append incr lpush rpush sadd hset mset ping}
RUNS=${RUNS:-3}
SECS=${SECS:-1.5}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
DATASIZE=${DATASIZE:-3}
THREADS=${THREADS:-1}
PORT=${PORT:-17400}
OUT=${OUT:-}
PEERS_DIR=${PEERS_DIR:-$HOME/.hotkv-peers}

die() { echo "bench-peers: $*" >&2; exit 1; }
log() { echo "bench-peers: $*" >&2; }

# --- tools -----------------------------------------------------------------

# shellcheck source=peers.sh
source "$ROOT/scripts/peers.sh"
ensure_peers
BIN=$PEERS_DIR/bin
CLI=$BIN/valkey-cli
BENCH=$BIN/valkey-benchmark
command -v taskset >/dev/null || die "taskset (util-linux) is required"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-peers.XXXXXX")
if [[ -n ${HOTKV_BIN:-} ]]; then
	HOTKV=$HOTKV_BIN
else
	log "building hotkv"
	(cd "$ROOT" && go build -o "$WORK/hotkv" ./cmd/hotkv)
	HOTKV=$WORK/hotkv
fi
# TLS=1: a CA and a server certificate for 127.0.0.1, then the arguments that
# make each server listen for TLS only and the tools connect with it.
SRV_TLS=() CLI_TLS=()
if [[ ${TLS:-0} == 1 ]]; then
	command -v openssl >/dev/null || die "TLS=1 needs openssl"
	(
		cd "$WORK"
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=bench-ca \
			-keyout ca.key -out ca.crt
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr
		printf 'subjectAltName=IP:127.0.0.1\n' >ext.cnf
		openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile ext.cnf -out server.crt
	) >/dev/null 2>&1 || die "making TLS certificates failed"
	SRV_TLS=(--tls-cert-file "$WORK/server.crt" --tls-key-file "$WORK/server.key" --tls-ca-cert-file "$WORK/ca.crt" --tls-auth-clients no)
	CLI_TLS=(--tls --cacert "$WORK/ca.crt")
fi
# listen_args port: the server arguments that listen on port (TLS only with TLS=1;
# HotKV's --port 0 is a kernel-chosen plain port the load never uses).
listen_args() {
	if [[ ${TLS:-0} == 1 ]]; then
		echo --port 0 --tls-port "$1"
	else
		echo --port "$1"
	fi
}

HZ=$(getconf CLK_TCK)
NCPU=$(nproc)
((NCPU >= 2)) || die "needs at least 2 cores (server and load generator on different cores)"

SERVER_PID=
STARTED=() # every server pid, for the exit trap
cleanup() {
	local p
	for p in "${STARTED[@]}"; do
		kill -CONT "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# --- commands --------------------------------------------------------------

VAL=$(printf '%*s' "$DATASIZE" '' | tr ' ' x)
K='key:__rand_int__'
declare -A CMD=(
	[set]="SET $K $VAL"
	[get]="GET $K"
	[mget]="MGET $K $K $K $K $K $K $K $K $K $K"
	[setnx]="SETNX $K $VAL"
	[append]="APPEND app:__rand_int__ $VAL"
	[incr]="INCR counter:__rand_int__"
	[lpush]="LPUSH mylist $VAL"
	[rpush]="RPUSH mylist $VAL"
	[sadd]="SADD myset element:__rand_int__"
	[hset]="HSET myhash element:__rand_int__ $VAL"
	[mset]="MSET $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL $K $VAL"
	[ping]="PING"
	[echo]="ECHO $VAL"
	[exists]="EXISTS $K"
	[type]="TYPE $K"
	[lpop]="LPOP mylist"
	[rpop]="RPOP mylist"
	[lrange_100]="LRANGE mylist 0 99"
	[spop]="SPOP myset"
	[zadd]="ZADD myzset __rand_int__ element:__rand_int__"
	[eval]="EVAL return(redis.call('incr',KEYS[1])) 1 counter:__rand_int__"
	[xadd]="XADD mystream * field $VAL"
)
# Commands whose data grows without bound start every run from an empty server,
# so that each server's runs see the same sizes.
declare -A FLUSH_FIRST=([append]=1 [lpush]=1 [rpush]=1 [xadd]=1)
# Commands that read the keys SET writes.
declare -A NEEDS_KEYS=([get]=1 [mget]=1 [exists]=1 [type]=1)
# Commands that consume their key start every run from a list or set holding
# more elements than the run pops, so that every run, on every server, pops
# real elements instead of ending on an empty key that answers nil cheaply.
declare -A FILL_FIRST=([lpop]=list [rpop]=list [spop]=set)

# --- servers ---------------------------------------------------------------

cli() { "$CLI" "${CLI_TLS[@]}" -p "$1" "${@:2}"; }

start_server() { # name setting port
	local name=$1 setting=$2 port=$3 pin=() env=()
	[[ $setting == pinned ]] && pin=(taskset -c 0)
	case $name in
	hotkv | hotkv-base)
		local bin=$HOTKV
		[[ $name == hotkv-base ]] && bin=${HOTKV_BASE_BIN:?HOTKV_BASE_BIN names the hotkv-base binary}
		[[ $setting == pinned ]] && env=(GOMAXPROCS=1)
		env "${env[@]}" "${pin[@]}" "$bin" $(listen_args "$port") "${SRV_TLS[@]}" --loglevel warning >"$WORK/$name.log" 2>&1 &
		;;
	redis)
		"${pin[@]}" "$BIN/redis8-server" $(listen_args "$port") "${SRV_TLS[@]}" --bind 127.0.0.1 --save '' --appendonly no \
			--loglevel warning >"$WORK/$name.log" 2>&1 &
		;;
	valkey)
		local io=()
		[[ $setting == free ]] && io=(--io-threads 2)
		"${pin[@]}" "$BIN/valkey-server" $(listen_args "$port") "${SRV_TLS[@]}" --bind 127.0.0.1 --save '' --appendonly no \
			"${io[@]}" --loglevel warning >"$WORK/$name.log" 2>&1 &
		;;
	*) die "unknown server $name" ;;
	esac
	SERVER_PID=$!
	STARTED+=("$SERVER_PID")
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(cli "$port" ping 2>/dev/null) == PONG ]] && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/$name.log" >&2
	die "$name did not start on port $port"
}

stop_server() {
	kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
}

cpu_ticks() { # utime+stime of a process (all its threads), in clock ticks
	# Fields 14 and 15 of /proc/PID/stat, counted after the "(name)" field.
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

supported() { # port cmd
	local args=(${CMD[$2]//__rand_int__/0}) reply
	reply=$(cli "$1" "${args[@]}" 2>&1 || true)
	[[ $reply != *"unknown command"* ]]
}

# bench port pipeline n cmd -> "rps client_cpu_pct" (server CPU via globals)
bench() {
	local port=$1 p=$2 n=$3 cmd=$4 pin=()
	[[ $SETTING == pinned ]] && pin=(taskset -c 1)
	local args=(${CMD[$cmd]}) t0 t1 tf=$WORK/time out=$WORK/bench.out
	t0=$(cpu_ticks "$SERVER_PID")
	TIMEFORMAT='%3U %3S %3R'
	{ time "${pin[@]}" "$BENCH" "${CLI_TLS[@]}" -p "$port" -c "$CLIENTS" -P "$p" -n "$n" -r "$KEYSPACE" \
		--threads "$THREADS" -q --csv "${args[@]}" >"$out" 2>&1; } 2>"$tf"
	t1=$(cpu_ticks "$SERVER_PID")
	local u s r rps
	read -r u s r <"$tf"
	rps=$(awk -F'"' 'NF > 4 && $2 != "test" { print $4 }' "$out" | tail -1)
	[[ -n $rps ]] || { cat "$out" >&2; die "no result from valkey-benchmark"; }
	SERVER_US_PER_OP=$(awk -v d=$((t1 - t0)) -v hz="$HZ" -v n="$n" 'BEGIN { printf "%.3f", d / hz * 1e6 / n }')
	CLIENT_PCT=$(awk -v u="$u" -v s="$s" -v r="$r" 'BEGIN { printf "%.0f", (u + s) / r * 100 }')
	RPS=${rps%.*}
}

preload_keys() { # port
	local have
	have=$(cli "$1" dbsize)
	((have >= KEYSPACE * 9 / 10)) && return 0
	"$BENCH" "${CLI_TLS[@]}" -p "$1" -c "$CLIENTS" -P 16 -n $((KEYSPACE * 3)) -r "$KEYSPACE" -q SET "$K" "$VAL" >/dev/null 2>&1
}

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# --- run -------------------------------------------------------------------

RAW=$WORK/raw.csv
echo "setting,server,pipeline,command,run,requests,ops_per_sec,server_us_per_op,client_cpu_pct" >"$RAW"
declare -A RES # key setting/server/pipeline/cmd -> "rps us clientpct" or "n/a"

# All servers of a setting run side by side, but only the one being measured is
# scheduled: the others are stopped with SIGSTOP. Runs are interleaved (run 1 of
# every server, then run 2, ...) so that drift on a shared machine hits every
# server alike instead of whichever happened to run last.
declare -A PID PORTOF
only() { # resume server $1, pause the others
	local s
	for s in $SERVERS; do
		if [[ $s == "$1" ]]; then kill -CONT "${PID[$s]}"; else kill -STOP "${PID[$s]}"; fi
	done
	SERVER_PID=${PID[$1]}
}
rotate() { # $1-th rotation of the server list
	local a=($SERVERS) i n=${#a[@]}
	for ((i = 0; i < n; i++)); do echo "${a[(i + $1) % n]}"; done
}
fill() { # port list|set n: a fresh mylist or myset with n + 10000 elements
	local args=() i
	if [[ $2 == list ]]; then
		args=(RPUSH mylist)
		for ((i = 0; i < 100; i++)); do args+=("$VAL"); done
	else
		args=(SADD myset)
		for ((i = 0; i < 100; i++)); do args+=("element:__rand_int__"); done
	fi
	cli "$1" del mylist myset >/dev/null
	"$BENCH" "${CLI_TLS[@]}" -p "$1" -c "$CLIENTS" -P 16 -n $(($3 / 100 + 100)) -r 1000000000 -q "${args[@]}" >/dev/null 2>&1
}

prepare() { # port cmd n: the state a run of n requests starts from
	[[ -n ${FLUSH_FIRST[$2]:-} ]] && cli "$1" flushall >/dev/null
	[[ -n ${NEEDS_KEYS[$2]:-} ]] && preload_keys "$1"
	[[ -n ${FILL_FIRST[$2]:-} ]] && fill "$1" "${FILL_FIRST[$2]}" "$3"
	return 0
}

port=$PORT
for SETTING in $SETTINGS; do
	for server in $SERVERS; do
		port=$((port + 1))
		log "$SETTING: starting $server on port $port"
		start_server "$server" "$SETTING" "$port"
		PID[$server]=$SERVER_PID PORTOF[$server]=$port
		cli "$port" flushall >/dev/null
	done
	SERVER_PID=
	for cmd in $COMMANDS; do
		[[ -n ${CMD[$cmd]:-} ]] || die "unknown command $cmd (known: ${!CMD[*]})"
		active=()
		for server in $SERVERS; do
			only "$server"
			if supported "${PORTOF[$server]}" "$cmd"; then
				active+=("$server")
			else
				for p in $PIPELINES; do RES[$SETTING/$server/$p/$cmd]=n/a; done
				log "$SETTING $server: $cmd n/a (unknown command)"
			fi
		done
		for p in $PIPELINES; do
			declare -A N=() RS=() US=() CS=()
			for server in "${active[@]}"; do
				# Calibrate (this is also the warm-up) so that a run lasts about SECS.
				only "$server"
				prepare "${PORTOF[$server]}" "$cmd" $((20000 * p))
				bench "${PORTOF[$server]}" "$p" $((20000 * p)) "$cmd"
				N[$server]=$(awk -v r="$RPS" -v s="$SECS" 'BEGIN { n = int(r * s / 1000) * 1000; print (n < 10000 ? 10000 : n) }')
			done
			for ((run = 1; run <= RUNS; run++)); do
				for server in $(rotate "$run"); do
					[[ " ${active[*]} " == *" $server "* ]] || continue
					only "$server"
					prepare "${PORTOF[$server]}" "$cmd" "${N[$server]}"
					bench "${PORTOF[$server]}" "$p" "${N[$server]}" "$cmd"
					RS[$server]+=" $RPS" US[$server]+=" $SERVER_US_PER_OP" CS[$server]+=" $CLIENT_PCT"
					echo "$SETTING,$server,$p,$cmd,$run,${N[$server]},$RPS,$SERVER_US_PER_OP,$CLIENT_PCT" >>"$RAW"
				done
			done
			for server in "${active[@]}"; do
				RES[$SETTING/$server/$p/$cmd]="$(median ${RS[$server]}) $(median ${US[$server]}) $(median ${CS[$server]})"
				log "$SETTING $server P$p $cmd: ${RES[$SETTING/$server/$p/$cmd]} (ops/s, server us/op, client cpu%)"
			done
			unset N RS US CS
		done
	done
	for server in $SERVERS; do
		kill -CONT "${PID[$server]}"
		SERVER_PID=${PID[$server]}
		stop_server
	done
done

# --- report ----------------------------------------------------------------

fmt_ops() { # "rps us pct" -> cell
	[[ $1 == n/a ]] && { echo n/a; return; }
	local r u c
	read -r r u c <<<"$1"
	local s
	s=$(printf "%'d" "$r" 2>/dev/null || echo "$r")
	((c > 85)) && s="$s (cb $c%)"
	echo "$s"
}
fmt_us() { [[ $1 == n/a ]] && echo n/a || awk '{ printf "%.2f", $2 }' <<<"$1"; }
ratio() { # a b -> a/b of ops/s
	[[ $1 == n/a || $2 == n/a || -z $1 || -z $2 ]] && { echo n/a; return; }
	awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN { printf "%.2fx", a / b }'
}

report() {
	echo "# HotKV vs Redis vs Valkey (valkey-benchmark)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); hotkv $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version 2>/dev/null | awk '{print $3}')"
	echo "- peers: $("$BIN/redis8-server" --version | awk '{print $1, $2, $3}'); $("$BIN/valkey-server" --version | awk '{print $1, $2, $3}')"
	echo "- machine: $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }'), $NCPU cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- load: valkey-benchmark -c $CLIENTS -r $KEYSPACE --threads $THREADS, value $DATASIZE bytes, $RUNS runs of ~${SECS}s, median"
	echo "- server CPU: utime+stime of the server process during the run / requests (µs per op)"
	echo "- (cb NN%): the load generator used NN% of a core, so the run is client-bound"
	for SETTING in $SETTINGS; do
		for p in $PIPELINES; do
			echo
			case $SETTING in
			pinned) echo "## pinned (server on core 0, HotKV GOMAXPROCS=1; load on core 1), pipeline $p" ;;
			free) echo "## free (nothing pinned; Valkey --io-threads 2), pipeline $p" ;;
			esac
			echo
			local hdr="| command |" sep="|---|" s
			for s in $SERVERS; do hdr="$hdr $s ops/s |"; sep="$sep---:|"; done
			[[ " $SERVERS " == *" hotkv "* ]] && for s in $SERVERS; do
				[[ $s == hotkv ]] || { hdr="$hdr hotkv/$s |"; sep="$sep---:|"; }
			done
			for s in $SERVERS; do hdr="$hdr $s µs/op |"; sep="$sep---:|"; done
			echo "$hdr"
			echo "$sep"
			for cmd in $COMMANDS; do
				local row="| ${cmd^^} |"
				for s in $SERVERS; do row="$row $(fmt_ops "${RES[$SETTING/$s/$p/$cmd]:-n/a}") |"; done
				[[ " $SERVERS " == *" hotkv "* ]] && for s in $SERVERS; do
					[[ $s == hotkv ]] || row="$row $(ratio "${RES[$SETTING/hotkv/$p/$cmd]:-n/a}" "${RES[$SETTING/$s/$p/$cmd]:-n/a}") |"
				done
				for s in $SERVERS; do row="$row $(fmt_us "${RES[$SETTING/$s/$p/$cmd]:-n/a}") |"; done
				echo "$row"
			done
		done
	done
}

if [[ -n $OUT ]]; then
	report | tee "$OUT"
	cp "$RAW" "${OUT%.md}.csv"
	src=$(realpath --relative-to="$ROOT" "$OUT")
	[[ $src == ../* ]] && src=$(realpath "$OUT")
	args=(-commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
		-command-line "$RUN_LINE" -source "$src" -clients "$CLIENTS" -keyspace "$KEYSPACE"
		-datasize "$DATASIZE" -runs "$RUNS" -threads "$THREADS"
		-version "redis=$("$BIN/redis8-server" --version | sed -E 's/.* v=([^ ]+).*/\1/')"
		-version "valkey=$("$BIN/valkey-server" --version | sed -E 's/.* v=([^ ]+).*/\1/')")
	for SETTING in $SETTINGS; do
		(cd "$ROOT" && go run ./cmd/hotkv-bench import-peers -o "$(realpath -m "${OUT%.md}-$SETTING.json")" \
			-setting "$SETTING" "${args[@]}" "$(realpath "${OUT%.md}.csv")")
	done
else
	report
fi
