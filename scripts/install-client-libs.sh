#!/usr/bin/env bash
# Installs the third-party Redis clients that tests/clients/clients_test.go drives
# HotKV with: redis-py from Debian (python3-redis, for the system python3)
# and node-redis, ioredis and BullMQ from npm at the versions pinned in
# tests/clients/node/package-lock.json. Safe to rerun; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! /usr/bin/python3 -c 'import redis' 2>/dev/null; then
  apt_install python3-redis
fi
if ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm
fi
if [ ! -d tests/clients/node/node_modules/bullmq ]; then
  (cd tests/clients/node && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
