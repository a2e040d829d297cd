#!/usr/bin/env bash
# The API conformance check (`make api-check`, a step of `make test`): Schemathesis runs every
# phase (examples, coverage, fuzzing, stateful) of Sources/DocSyncServer/openapi.yaml, with
# every check, against a real docsync-server, and this script exits non-zero on any failure
# or error. It finds no server error, only statuses each operation documents, bodies and
# event streams matching their schemas, 405 with Allow for a method a path does not have,
# and schema-valid requests accepted / schema-violating ones refused (the exceptions that no
# schema can state are in schemathesis.toml, with their reasons).
#
# It builds nothing: it runs the debug docsync-server that `swift build --build-tests` left
# (DOCSYNC_SERVER=PATH for another). The server gets a fresh data directory and a free
# loopback port, two accounts (alice, who shares the zone Shared with bob, who accepted), and
# is stopped when the script ends, pass or fail. Schemathesis (4.x) is installed with
# `pip install --user` when missing. The run is bounded: API_CHECK_EXAMPLES (default 10)
# examples per operation and phase, API_CHECK_SEED (default fixed) for a repeatable run,
# API_CHECK_SEED=random for a new one. The report is kept in .build/api-check/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=${DOCSYNC_SERVER:-$root/.build/debug/docsync-server}
examples=${API_CHECK_EXAMPLES:-10}
seed=${API_CHECK_SEED:-20261129}
out=$root/.build/api-check
export PATH="$HOME/.local/bin:$PATH"

[ -x "$server" ] || { echo "api-check: no $server; run swift build first" >&2; exit 2; }
if ! st --version 2>/dev/null | grep -q ' 4\.'; then
  echo "api-check: installing schemathesis 4 (pip install --user)"
  if ! python3 -m pip --version > /dev/null 2>&1; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip
  fi
  pip=(python3 -m pip install --user --quiet --disable-pip-version-check --no-input 'schemathesis>=4.32,<5')
  # A Python that its distribution manages (PEP 668) takes --user installs only when told so.
  "${pip[@]}" 2> /dev/null || "${pip[@]}" --break-system-packages
  st --version | grep -q ' 4\.' || { echo "api-check: schemathesis 4 is not on PATH after installing it" >&2; exit 2; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/docsync-api-check.XXXXXX")
pid=""
stop() {
  status=$?
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

data=$work/data
alice=$("$server" user add alice --data "$data")
bob=$("$server" user add bob --data "$data")
"$server" serve --data "$data" --listen 127.0.0.1:0 --rate-limit 100000 > "$work/stdout" 2> "$work/server.log" &
pid=$!
url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's/^listening on //p' "$work/stdout")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "api-check: docsync-server did not start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "api-check: docsync-server did not listen within 30 s" >&2; exit 1; }

# alice shares Shared with bob, who accepts: the shared routes have something to reach.
python3 - "$url" "$alice" "$bob" <<'EOF'
import json, sys, urllib.request
url, alice, bob = sys.argv[1:]
def call(method, path, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        response.read()
call("PUT", "/v1/zones/Shared", alice)
call("POST", "/v1/zones/Shared/share", alice, {"action": "invite", "participants": ["bob"]})
call("POST", "/v1/shares/alice/Shared/accept", bob)
EOF

seed_option=()
[ "$seed" = random ] || seed_option=(--seed "$seed")
mkdir -p "$out"
rm -f "$out"/junit-*.xml
echo "api-check: schemathesis against docsync-server at $url (as bob; examples $examples, seed $seed)"
# As bob: his own zones, and alice's through /v1/shared/alice (schemathesis.toml names alice
# for {owner} now and then, and Shared for {zone}).
status=0
cd "$out"  # schemathesis keeps its caches (.hypothesis, .schemathesis) where it runs
st --config-file "$here/schemathesis.toml" run "$root/Sources/DocSyncServer/openapi.yaml" \
  --url "$url" -H "Authorization: Bearer $bob" \
  --phases examples,coverage,fuzzing,stateful --checks all \
  --max-examples "$examples" "${seed_option[@]}" --no-color \
  --report junit --report-dir "$out" > "$out/schemathesis.txt" 2>&1 || status=$?
tail -n 30 "$out/schemathesis.txt"
if [ "$status" != 0 ]; then
  echo "api-check: FAILED (exit $status); the whole report: $out/schemathesis.txt; the server's log follows" >&2
  tail -n 50 "$work/server.log" >&2
fi
exit "$status"
