#!/usr/bin/env bash
# Idle memory of the server on the embedded database (docs/performance.md, "Idle memory"). Linux only (/proc).
#
#   npm run build && scripts/idle-memory.sh              # a new data folder: first start, initdb included
#   scripts/idle-memory.sh ./some-data-dir               # an existing one: a restart
#   SERVER="npx tsx src/main.ts" scripts/idle-memory.sh  # another way of starting it
#
# Starts the server, sends 20 REST and 20 GraphQL list requests, waits 3 s, and prints the resident memory
# (RSS) of the process that listens, and its peak since start; then stops it with SIGTERM.
set -euo pipefail
PORT=${PORT:-3999}
CREATED=""
if [ $# -ge 1 ]; then DIR=$1; else DIR=$(mktemp -d); CREATED=$DIR; fi
SERVER=${SERVER:-node --max-semi-space-size=16 --heap-growing-percent=50 dist/src/main.js}
LOG=$(mktemp)
DATA_DIR=$DIR PORT=$PORT HOST=127.0.0.1 $SERVER >"$LOG" 2>&1 &
LAUNCHER=$!
trap 'kill -TERM $LAUNCHER 2>/dev/null || true; rm -f "$LOG"; [ -z "$CREATED" ] || rm -rf "$CREATED"' EXIT
for _ in $(seq 1 480); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.25; done
for _ in $(seq 1 20); do
  curl -sf "http://127.0.0.1:$PORT/api/wiki/list" >/dev/null
  curl -sf "http://127.0.0.1:$PORT/graphql" -H 'content-type: application/json' -d '{"query":"{ wikiPages { total } }"}' >/dev/null
done
sleep 3
PID=$(ss -ltnpH "sport = :$PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$PID/status"; }
echo "RSS $(( $(kib VmRSS) / 1024 )) MB, peak $(( $(kib VmHWM) / 1024 )) MB  ($SERVER, DATA_DIR=$DIR)"
kill -TERM "$PID"
wait $LAUNCHER 2>/dev/null || true
