#!/usr/bin/env bash
# Stand-in for src/redis-server in a copy of Redis's source tree, used by
# scripts/redis-testsuite.sh with HARNESS=1: Redis's test harness starts
# HotKV ($HOTKV_BIN) with the config file it wrote. The harness waits for
# " PID: <pid>.*Server initialized" and then "Ready to accept" in the
# server's stdout; HotKV logs to stderr in its own words, so this writes the
# first line, and a helper (detached, so that it is no child of the server
# for the tests that look for one) writes the second once HotKV's
# "ready to accept connections" appears. exec keeps the PID the harness
# signals and waits for.
set -u
echo "$$:M $(date '+%d %b %Y %H:%M:%S.000') * HotKV stand-in PID: $$ Server initialized"
log=$(readlink -f /proc/$$/fd/1)
from=$(wc -l < "$log" 2>/dev/null || echo 0)
( (
  for _ in $(seq 1200); do
    if tail -n +"$((from + 1))" "$log" 2>/dev/null | grep -q 'ready to accept connections'; then
      echo "$$:M $(date '+%d %b %Y %H:%M:%S.000') * Ready to accept connections tcp"
      exit 0
    fi
    sleep 0.1
  done
) >> "$log" & )
exec "${HOTKV_BIN:?}" "$@" 2>&1
