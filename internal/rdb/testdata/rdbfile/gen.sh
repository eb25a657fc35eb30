#!/usr/bin/env bash
# Regenerates the RDB files here with the peers of ../../../../../shared/peers/install.sh:
#   redis-8.0.2.rdb   Redis 8.0.2, every type and encoding, TTLs, hash field TTLs,
#                     a stream with a consumer group, two databases, a function library,
#                     one key already expired when saved (active expiry off)
#   valkey-8.1.1.rdb  Valkey 8.1.1, the same data but hash field TTLs and functions
#                     are left out (Valkey 8.1 has no HEXPIRE)
# Expiry times are absolute and far in the future (year 2100) so that the
# files keep loading the same; file_test.go checks what they hold.
set -euo pipefail
BIN=${HOTKV_PEERS_DIR:-$HOME/.hotkv-peers}/bin
HERE=$(cd "$(dirname "$0")" && pwd)
gen() { # server cli port out full
  local server=$1 cli=$2 port=$3 out=$4 full=$5 dir
  dir=$(mktemp -d)
  "$BIN/$server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" --daemonize yes \
    --logfile "$dir/log" --enable-debug-command yes --rdbcompression yes >/dev/null
  sleep 0.5
  local C=("$BIN/$cli" -p "$port")
  {
    echo "SET s:int 12345"; echo "SET s:neg -7"; echo "SET s:raw hello"
    echo "SET s:lzf $(printf 'abcdefgh%.0s' $(seq 1 40))"
    echo "RPUSH l:small a b 1 2"
    for i in $(seq 1 200); do echo "RPUSH l:big element-number-$i-padding-padding"; done
    echo "SADD set:int 1 2 3 -5"; echo "SADD set:lp a b c"
    for i in $(seq 1 200); do echo "SADD set:ht member$i"; done
    echo "ZADD z:lp 1 a 2.5 b -inf c"
    for i in $(seq 1 200); do echo "ZADD z:sl $i.5 m$i"; done
    echo "HSET h:lp f1 v1 f2 v2"
    for i in $(seq 1 200); do echo "HSET h:ht field$i value$i"; done
    echo "XADD st 1-1 a 1"; echo "XADD st 2-1 b 2 c 3"; echo "XADD st 3-0 a 4"
    echo "XGROUP CREATE st g1 0"; echo "XREADGROUP GROUP g1 c1 COUNT 2 STREAMS st >"
    echo "XGROUP CREATECONSUMER st g1 c2"; echo "XDEL st 3-0"
    echo "SET ttl:s v"; echo "PEXPIREAT ttl:s 4102444800123"
    echo "RPUSH ttl:l x"; echo "EXPIREAT ttl:l 4102444801"
    echo "SELECT 5"; echo "SET db5:k db5value"; echo "HSET db5:h a 1"; echo "SELECT 0"
    if [ "$full" = yes ]; then
      echo "HSET h:ttl a 1 b 2 c 3"; echo "HPEXPIREAT h:ttl 4102444800500 FIELDS 2 a b"
      for i in $(seq 1 200); do echo "HSET h:ttlbig f$i v$i"; done
      echo "HPEXPIREAT h:ttlbig 4102444800999 FIELDS 1 f7"
    fi
  } | "${C[@]}" >/dev/null
  if [ "$full" = yes ]; then
    "${C[@]}" FUNCTION LOAD "#!lua name=mylib
redis.register_function('myfunc', function(keys, args) return args[1] end)" >/dev/null
  fi
  "${C[@]}" DEBUG DIGEST > "$HERE/$out.digest" # before the expired key
  printf 'DEBUG SET-ACTIVE-EXPIRE 0\nSET gone v PX 50\n' | "${C[@]}" >/dev/null
  sleep 0.2
  "${C[@]}" SAVE >/dev/null
  cp "$dir/dump.rdb" "$HERE/$out"
  "${C[@]}" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  rm -rf "$dir"
}
gen redis8-server redis8-cli 7411 redis-8.0.2.rdb yes
gen valkey-server valkey-cli 7412 valkey-8.1.1.rdb no
