#!/bin/bash
# The status page's cost (issue 40's figure): docsyncd's CPU-seconds over a folder of
# FILES files (default 100,000) on an embedded backend, idle for 60 s and while 2,000 edits
# sync, with the page closed and with its live feed open (curl reading /api/stream, as an
# open browser tab does). B is the build directory (default .build/release).
set -euo pipefail
B=${B:-.build/release}
FILES=${FILES:-100000}
WORK=$(mktemp -d /tmp/docsync-page-cpu-XXXXXX)
trap 'kill $PID $CURL 2>/dev/null || true; rm -rf "$WORK"' EXIT
PID= CURL=
mkdir -p "$WORK/F"
python3 - "$WORK/F" "$FILES" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for d in range((files + 99) // 100):
    os.makedirs(f'{root}/d{d:04}')
    for f in range(min(100, files - d * 100)):
        with open(f'{root}/d{d:04}/f{f:03}.txt', 'w') as h: h.write(f'file {d} {f}\n' * 8)
PY
"$B/docsyncd" --folder "$WORK/F" --backend "file://$WORK/store" --device page-cpu --state-dir "$WORK/state" \
  --socket "$WORK/s.sock" --web-listen 127.0.0.1:0 > "$WORK/d.log" 2>&1 &
PID=$!
status() { "$B/docs-status" --socket "$WORK/s.sock" "$@"; }
for _ in $(seq 100); do [ -S "$WORK/s.sock" ] && break; sleep 0.1; done
started=$(date +%s)
status wait --timeout 3600 > /dev/null
echo "initial sync of $FILES files: $(( $(date +%s) - started )) s"
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
idle() { local a; a=$(cpu); sleep 60; echo "scale=2; ($(cpu) - $a) / $ticks" | bc; }
edits() {
  local a; a=$(cpu)
  python3 - "$WORK/F" "$1" <<'PY'
import sys
for d in range(20):
    for f in range(100):
        open(f'{sys.argv[1]}/d{d:04}/f{f:03}.txt', 'a').write(f'edit {sys.argv[2]}\n')
PY
  sleep 1
  status wait --timeout 600 > /dev/null
  echo "scale=2; ($(cpu) - $a) / $ticks" | bc
}
open_page() {
  local address; address=$(status --json | python3 -c "import json, sys; print(json.load(sys.stdin)['web']['address'])")
  curl -s -o /dev/null -c "$WORK/jar" "$(status web)"
  curl -s -N -b "$WORK/jar" "$address/api/stream" > "$WORK/stream.txt" &
  CURL=$!
  sleep 2
}
echo "idle 60 s, page closed: $(idle) CPU-s"
open_page
echo "idle 60 s, page open:   $(idle) CPU-s"
echo "2,000 edits synced, page open:   $(edits 1) CPU-s"
kill $CURL; CURL=
echo "2,000 edits synced, page closed: $(edits 2) CPU-s"
echo "status events the open page received: $(grep -c '^event: status' "$WORK/stream.txt")"
