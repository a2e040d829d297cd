#!/usr/bin/env bash
# cluster-demo.sh - docsync-server as a cluster, end to end, on this machine (`make cluster-demo`):
#
#   PostgreSQL + an S3 store   config/services/start-postgres.sh and start-s3.sh, on ports of
#                              their own and in a state directory of their own (never the
#                              services `make test` or `make services-up` run)
#   two docsync-server         s1 and s2, plain HTTP on two loopback ports, one database and
#   instances                  one bucket (the server creates the bucket when missing)
#   HAProxy                    config/cluster/haproxy.cfg.template filled in: TLS with a
#                              self-signed certificate for 127.0.0.1/localhost, round-robin,
#                              health checks on /readyz
#   two daemons                alpha and beta, each with its own folder, configuration and
#                              token, on https://127.0.0.1:PORT, trusting the certificate
#
# then files created and edited on one daemon appear on the other (with the time each
# took); the instance holding the daemons' push streams is killed with kill -9, the
# streams move to the other and files still go both ways; the instance comes back and
# HAProxy takes it in again. Everything it started is stopped at the end, pass or fail, and its
# temporary directories are removed. Exit status 0 when every step passed, 1 otherwise
# (the failing step says what and shows the end of the logs concerned).
#
# Settings (environment)                                           default
#   DOCSYNC_BIN              directory of docsync-server, docsyncd,   .build/release
#                            docs-status
#   DOCSYNC_PG_PORT          PostgreSQL's port                        first free from 54349
#   DOCSYNC_S3_PORT          the S3 store's port (it takes 5)         first free from 8510
#   DOCSYNC_CLUSTER_PORT     HAProxy's https port                     first free from 8443
#   DOCSYNC_CLUSTER_TIMEOUT  seconds a file may take to arrive        60
#   DOCSYNC_CLUSTER_KEEP     1: keep the temporary directory (logs)   (removed)
# Needs haproxy, openssl and curl; installs the missing ones with apt-get (through sudo
# when not root, without asking for a password when there is no terminal).
set -Eeuo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERVICES=$ROOT/config/services
TEMPLATE=$ROOT/config/cluster/haproxy.cfg.template
BIN=${DOCSYNC_BIN:-$ROOT/.build/release}
TIMEOUT=${DOCSYNC_CLUSTER_TIMEOUT:-60}

# Everything of this run lives in WORK; the services in a directory of their own (root runs
# PostgreSQL as the user postgres, who must reach it: start-postgres.sh sets its modes).
WORK=$(mktemp -d /tmp/docsync-cluster.XXXXXX)
export DOCSYNC_SERVICES_DIR
DOCSYNC_SERVICES_DIR=$(mktemp -d /tmp/docsync-cluster-services.XXXXXX)
# log, die, as_root, apt_install, port_busy (and SERVICES_DIR for apt's log and lock).
. "$SERVICES/common.sh"
SCRIPT=cluster-demo

# ---------------------------------------------------------------------------------------
# Output: a short line per step; timings in milliseconds.

STEP=0
step() { STEP=$((STEP + 1)); printf '%2d. %s\n' "$STEP" "$*"; }
say() { printf '    %s\n' "$*"; }
now_ms() { date +%s%3N; }
seconds_since() { local ms=$(($(now_ms) - $1)); printf '%d.%03d s' $((ms / 1000)) $((ms % 1000)); }

# Logs shown when a step fails: the ones the step names (LOGS), else the processes'.
LOGS=()
fail() {
  echo "cluster-demo: FAILED at step $STEP: $*" >&2
  local f shown=("${LOGS[@]}")
  [ ${#shown[@]} -gt 0 ] || shown=("$WORK"/logs/{s1,s2,haproxy,alpha,beta}.log)
  for f in "${shown[@]}"; do
    [ -s "$f" ] || continue
    echo "---- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
  exit 1
}
# A command that fails in this shell (or in a function it runs) ends the demo, naming the
# line; in subshells (command substitutions, pipelines) the trap does nothing: their
# status decides there.
trap 'status=$?; [ "$BASHPID" != $$ ] || fail "line $LINENO: \`$BASH_COMMAND\` failed (status $status)"' ERR

# ---------------------------------------------------------------------------------------
# Processes: each started in the background with its pid recorded; stopped on exit.

declare -A PID=()
start_bg() { # NAME LOGFILE CMD... (stdout and stderr to LOGFILE)
  local name=$1 logfile=$2; shift 2
  "$@" </dev/null >"$logfile" 2>&1 &
  PID[$name]=$!
}
stop_bg() { # NAME: SIGTERM, SIGKILL after 10 s
  local pid=${PID[$1]:-}
  [ -n "$pid" ] || return 0
  unset "PID[$1]"
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - ERR
  set +e
  echo "--- stopping everything the demo started"
  # The daemons first, side by side, then HAProxy, then the instances side by side (after
  # SIGTERM each serves on for its drain delay, 5 s, with /readyz answering 503: the time
  # a balancer in front takes to stop sending it requests).
  local alpha_stop beta_stop s1_stop s2_stop
  stop_bg alpha & alpha_stop=$!
  stop_bg beta & beta_stop=$!
  wait "$alpha_stop" "$beta_stop"
  stop_bg haproxy
  stop_bg s1 & s1_stop=$!
  stop_bg s2 & s2_stop=$!
  wait "$s1_stop" "$s2_stop"
  bash "$SERVICES/stop.sh" --clean 2>&1 | sed 's/^/    /'
  if [ "${DOCSYNC_CLUSTER_KEEP:-}" = 1 ]; then
    echo "    kept $WORK (logs in $WORK/logs)"
  else
    rm -rf "$WORK"
  fi
  rm -rf "$DOCSYNC_SERVICES_DIR"
  if [ "$status" = 0 ]; then echo "cluster demo: every step passed"; else echo "cluster demo: failed (exit $status)"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# until_ok TIMEOUT CMD...: runs CMD every 50 ms until it succeeds (0) or TIMEOUT seconds
# pass (1).
until_ok() {
  local deadline=$(($(now_ms) + $1 * 1000)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# free_port VAR FIRST [COUNT]: sets VAR to the first port from FIRST on with COUNT (1)
# free ports in a row on 127.0.0.1, skipping those already chosen in this run.
CHOSEN=" "
free_port() {
  local var=$1 port=$2 count=${3:-1} i ok
  while [ "$port" -le 65000 ]; do
    ok=1
    for ((i = 0; i < count; i++)); do
      if [[ $CHOSEN == *" $((port + i)) "* ]] || port_busy $((port + i)); then ok=; break; fi
    done
    if [ -n "$ok" ]; then
      for ((i = 0; i < count; i++)); do CHOSEN+="$((port + i)) "; done
      printf -v "$var" '%s' "$port"; return 0
    fi
    port=$((port + count))
  done
  return 1
}

mkdir -p "$WORK/logs"
echo "docsync cluster demo: two docsync-server instances on one PostgreSQL and one S3 bucket, behind HAProxy"
echo "(working in $WORK)"

# ---------------------------------------------------------------------------------------
step "programs"
for program in docsync-server docsyncd docs-status; do
  [ -x "$BIN/$program" ] || fail "$BIN/$program is missing: build first (make release)"
done
missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  ( apt_install "${missing[@]}" ) || fail "could not install ${missing[*]}"
fi
export PATH=$PATH:/usr/sbin:/sbin
say "$(haproxy -v | sed -n 1p)"
say "$(openssl version)"

# ---------------------------------------------------------------------------------------
# Ports given are taken as they are (the start scripts say if they are busy).
PG_PORT=${DOCSYNC_PG_PORT:-}; S3_PORT=${DOCSYNC_S3_PORT:-}; LB_PORT=${DOCSYNC_CLUSTER_PORT:-}
CHOSEN+="$PG_PORT $S3_PORT ${S3_PORT:+$((S3_PORT + 1)) $((S3_PORT + 2)) $((S3_PORT + 3)) $((S3_PORT + 4))} $LB_PORT "
[ -n "$PG_PORT" ] || free_port PG_PORT 54349 || fail "no free port for PostgreSQL"
[ -n "$S3_PORT" ] || free_port S3_PORT 8510 5 || fail "no 5 free ports in a row for the S3 store"
[ -n "$LB_PORT" ] || free_port LB_PORT 8443 || fail "no free port for HAProxy"
free_port STATS_PORT 8404 || fail "no free port for HAProxy's statistics"
step "PostgreSQL on 127.0.0.1:$PG_PORT and S3 on 127.0.0.1:$S3_PORT (config/services/start-*.sh; state in $DOCSYNC_SERVICES_DIR)"
started=$(now_ms)
DOCSYNC_PG_PORT=$PG_PORT bash "$SERVICES/start-postgres.sh" >"$WORK/postgres.env" 2>"$WORK/logs/start-postgres.log" & pg_job=$!
DOCSYNC_S3_PORT=$S3_PORT bash "$SERVICES/start-s3.sh" >"$WORK/s3.env" 2>"$WORK/logs/start-s3.log" & s3_job=$!
pg_status=0; wait "$pg_job" || pg_status=$?
s3_status=0; wait "$s3_job" || s3_status=$?
LOGS=("$WORK/logs/start-postgres.log"); [ "$pg_status" = 0 ] || fail "start-postgres.sh failed (status $pg_status)"
LOGS=("$WORK/logs/start-s3.log"); [ "$s3_status" = 0 ] || fail "start-s3.sh failed (status $s3_status)"
LOGS=()
set -a; . "$WORK/postgres.env"; . "$WORK/s3.env"; set +a
say "both up after $(seconds_since "$started")"

# ---------------------------------------------------------------------------------------
step "the instances' configuration: one [storage] for both"
BUCKET=docsync-cluster-demo
cat >"$WORK/s3.credentials" <<EOF
access_key = $DOCSYNC_TEST_S3_ACCESS_KEY
secret_key = $DOCSYNC_TEST_S3_SECRET_KEY
EOF
chmod 600 "$WORK/s3.credentials"
cat >"$WORK/docsync-server.toml" <<EOF
# written by config/cluster/cluster-demo.sh: every instance reads this file and is given
# its own --listen; they share the database and the bucket.
listen = "127.0.0.1:0"
# HAProxy connects from here: its X-Forwarded-For names the client (for the rate limit of
# requests without a valid token).
trusted_proxies = ["127.0.0.1"]
[storage]
records = "$DOCSYNC_TEST_POSTGRES_URL"
chunks = "s3://$BUCKET?endpoint=$DOCSYNC_TEST_S3_ENDPOINT&region=$DOCSYNC_TEST_S3_REGION"
credentials = "$WORK/s3.credentials"
EOF
say "[storage] records = \"${DOCSYNC_TEST_POSTGRES_URL/:$DOCSYNC_PG_PASSWORD@/:…@}\""
say "[storage] chunks  = \"s3://$BUCKET?endpoint=$DOCSYNC_TEST_S3_ENDPOINT&region=$DOCSYNC_TEST_S3_REGION\" (credentials in a file, mode 600)"

# ---------------------------------------------------------------------------------------
# start_instance NAME PORT: docsync-server serve on 127.0.0.1:PORT (0: a free one).
# wait_listening NAME: waits for its "listening on" line and sets PORT_<NAME>.
start_instance() {
  start_bg "$1" "$WORK/logs/$1.log" "$BIN/docsync-server" serve --config "$WORK/docsync-server.toml" --listen "127.0.0.1:$2"
}
wait_listening() {
  local name=$1 line deadline=$(($(now_ms) + 60000))
  LOGS=("$WORK/logs/$name.log")
  until line=$(grep -m 1 -o 'listening on http://[0-9.]*:[0-9]*' "$WORK/logs/$name.log" 2>/dev/null); do
    alive "${PID[$name]}" || fail "docsync-server $name exited before it listened"
    [ "$(now_ms)" -lt "$deadline" ] || fail "docsync-server $name did not listen within 60 s"
    sleep 0.05
  done
  printf -v "PORT_$name" '%s' "${line##*:}"
  until_ok 30 ready "${line##*:}" || fail "instance $name's /readyz did not answer 200 within 30 s"
  LOGS=()
}
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$1/readyz" || true)" = 200 ]; }

step "two docsync-server instances, started at once (one of them migrates the schema, under a lock; the bucket is created when missing)"
started=$(now_ms)
start_instance s1 0
start_instance s2 0
wait_listening s1
wait_listening s2
say "s1 on http://127.0.0.1:$PORT_s1 (pid ${PID[s1]}), s2 on http://127.0.0.1:$PORT_s2 (pid ${PID[s2]}): both /readyz 200 after $(seconds_since "$started")"
if grep -qh "created the bucket" "$WORK"/logs/s[12].log; then say "the bucket $BUCKET was missing: an instance created it"; fi

# ---------------------------------------------------------------------------------------
step "a self-signed certificate for 127.0.0.1 and localhost (openssl)"
mkdir -p "$WORK/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" >"$WORK/logs/openssl.log" 2>&1 \
  || { LOGS=("$WORK/logs/openssl.log"); fail "openssl could not make the certificate"; }
cat "$WORK/tls/cert.pem" "$WORK/tls/key.pem" >"$WORK/tls/haproxy.pem"
chmod 600 "$WORK/tls/key.pem" "$WORK/tls/haproxy.pem"
say "$WORK/tls/cert.pem (the daemons trust it), haproxy.pem (certificate + key, for HAProxy)"

# ---------------------------------------------------------------------------------------
LB=https://127.0.0.1:$LB_PORT
STATS="http://127.0.0.1:$STATS_PORT/stats;csv"
step "HAProxy on $LB: TLS, round-robin over s1 and s2, health checks on /readyz"
servers=$(printf '    server s1 127.0.0.1:%s\n    server s2 127.0.0.1:%s' "$PORT_s1" "$PORT_s2")
awk -v bind="127.0.0.1:$LB_PORT" -v pem="$WORK/tls/haproxy.pem" -v stats="127.0.0.1:$STATS_PORT" \
    -v admin="$WORK/haproxy.sock" -v servers="$servers" '
  $1 == "@SERVERS@" { print servers; next }
  { gsub(/@BIND@/, bind); gsub(/@PEM@/, pem); gsub(/@STATS_BIND@/, stats); gsub(/@ADMIN_SOCKET@/, admin); print }
' "$TEMPLATE" >"$WORK/haproxy.cfg"
! grep -v '^[[:space:]]*#' "$WORK/haproxy.cfg" | grep '@[A-Z_]*@' || fail "placeholders left in $WORK/haproxy.cfg"
haproxy -c -q -f "$WORK/haproxy.cfg" >"$WORK/logs/haproxy-check.log" 2>&1 \
  || { LOGS=("$WORK/logs/haproxy-check.log"); fail "haproxy -c refused the configuration made from $TEMPLATE"; }
say "haproxy -c: $WORK/haproxy.cfg (from config/cluster/haproxy.cfg.template) is valid"
started=$(now_ms)
start_bg haproxy "$WORK/logs/haproxy.log" haproxy -db -f "$WORK/haproxy.cfg"
# server_field SERVER COLUMN: a column of HAProxy's CSV statistics for one instance
# (5 current sessions, 8 sessions in all, 17 requests redispatched elsewhere, 18 status).
server_field() {
  { curl -s --max-time 3 "$STATS" || true; } | awk -F, -v s="$1" -v c="$2" '$1 == "docsync_instances" && $2 == s { print $c }'
}
server_is() { [ "$(server_field "$1" 18)" = "$2" ]; }
lb_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 --cacert "$WORK/tls/cert.pem" "$LB/readyz" || true)" = 200 ]; }
LOGS=("$WORK/logs/haproxy.log")
until_ok 30 lb_ready || fail "$LB/readyz did not answer 200 through HAProxy within 30 s"
until_ok 30 server_is s1 UP || fail "HAProxy does not see s1 as UP"
until_ok 30 server_is s2 UP || fail "HAProxy does not see s2 as UP"
LOGS=()
say "$LB/readyz answers 200 (certificate checked by curl --cacert); s1 UP, s2 UP; after $(seconds_since "$started")"

# ---------------------------------------------------------------------------------------
step "a user and two device tokens (docsync-server user add / user token, on the shared store)"
mkdir -p "$WORK/alpha" "$WORK/beta"
"$BIN/docsync-server" user add demo --device alpha --config "$WORK/docsync-server.toml" \
    >"$WORK/alpha/token" 2>"$WORK/logs/user.log" || { LOGS=("$WORK/logs/user.log"); fail "docsync-server user add failed"; }
"$BIN/docsync-server" user token demo --device beta --config "$WORK/docsync-server.toml" \
    >"$WORK/beta/token" 2>>"$WORK/logs/user.log" || { LOGS=("$WORK/logs/user.log"); fail "docsync-server user token failed"; }
chmod 600 "$WORK/alpha/token" "$WORK/beta/token"
[ -s "$WORK/alpha/token" ] && [ -s "$WORK/beta/token" ] || fail "a token is empty"
say "user demo: token for alpha in alpha/token, for beta in beta/token"

# ---------------------------------------------------------------------------------------
step "two daemons, alpha and beta, each on its own folder, through $LB"
for device in alpha beta; do
  mkdir -p "$WORK/$device/Documents"
  cat >"$WORK/$device/docsync.toml" <<TOML
# written by config/cluster/cluster-demo.sh
device = "$device"
state_dir = "$WORK/$device/state"
socket = "$WORK/$device/control.sock"
[backend]
url = "$LB"
token_file = "$WORK/$device/token"
ca_file = "$WORK/tls/cert.pem"
[[folders]]
id = "Documents"
path = "$WORK/$device/Documents"
TOML
  start_bg "$device" "$WORK/logs/$device.log" "$BIN/docsyncd" --config "$WORK/$device/docsync.toml"
done
started=$(now_ms)
LOGS=("$WORK/logs/alpha.log" "$WORK/logs/beta.log" "$WORK/logs/haproxy.log")
for device in alpha beta; do
  until_ok 30 test -S "$WORK/$device/control.sock" || fail "docsyncd $device did not open its control socket within 30 s"
  "$BIN/docs-status" wait --timeout 60 --socket "$WORK/$device/control.sock" >"$WORK/logs/$device-wait.log" 2>&1 \
    || { LOGS+=("$WORK/logs/$device-wait.log"); fail "docsyncd $device did not settle (docs-status wait)"; }
done
LOGS=()
say "docsyncd --config alpha/docsync.toml ([backend] url = \"$LB\", ca_file = tls/cert.pem), the same for beta"
say "both idle after $(seconds_since "$started")"

# ---------------------------------------------------------------------------------------
# sync FROM TO PATH TEXT WHAT: writes TEXT to PATH in FROM's folder, waits until TO's copy
# holds exactly TEXT, prints the time it took.
has_text() { [ -f "$1" ] && [ "$(cat "$1"; echo .)" = "$2." ]; }
sync_file() {
  local from=$1 to=$2 path=$3 text=$4 what=$5 t0
  t0=$(now_ms)
  printf '%s' "$text" >"$WORK/$from/Documents/$path"
  LOGS=("$WORK/logs/$from.log" "$WORK/logs/$to.log" "$WORK/logs/haproxy.log" "$WORK"/logs/s[12].log)
  until_ok "$TIMEOUT" has_text "$WORK/$to/Documents/$path" "$text" \
    || fail "$path, $what on $from, did not reach $to within $TIMEOUT s"
  LOGS=()
  say "$what $path on $from: on $to after $(seconds_since "$t0")"
}
served() { printf 's1 %s, s2 %s' "$(server_field s1 8)" "$(server_field s2 8)"; }

step "files sync through the cluster"
sync_file alpha beta notes.txt $'Meeting notes\n' "create"
sync_file beta alpha notes.txt $'Meeting notes\n- decided: weekly sync\n' "edit"
say "requests HAProxy passed to each instance so far: $(served)"

# ---------------------------------------------------------------------------------------
# The push streams are the only sessions left open once both daemons are idle: HAProxy's
# current sessions per instance say where they are. The instance holding more is killed,
# so that the streams have to move.
streams_on() { [ $(($(server_field s1 5) + $(server_field s2 5))) = 2 ]; }
LOGS=("$WORK/logs/haproxy.log" "$WORK/logs/alpha.log" "$WORK/logs/beta.log")
until_ok 30 streams_on || fail "HAProxy does not show the daemons' two push streams (GET /v1/notifications)"
LOGS=()
if [ "$(server_field s2 5)" -gt "$(server_field s1 5)" ]; then VICTIM=s2; OTHER=s1; else VICTIM=s1; OTHER=s2; fi
streams_moved() { [ "$(server_field "$OTHER" 5)" = 2 ]; }

step "kill -9 instance $VICTIM (pid ${PID[$VICTIM]}), which holds $(server_field "$VICTIM" 5) of the 2 push streams; $OTHER carries on"
served_before=$(server_field "$VICTIM" 8)
redispatched_before=$(server_field "$VICTIM" 17)
killed=$(now_ms)
kill -KILL "${PID[$VICTIM]}"
wait "${PID[$VICTIM]}" 2>/dev/null || true
unset "PID[$VICTIM]"
LOGS=("$WORK/logs/haproxy.log" "$WORK/logs/alpha.log" "$WORK/logs/beta.log")
until_ok "$TIMEOUT" streams_moved || fail "the push streams did not reconnect to $OTHER within $TIMEOUT s"
LOGS=()
say "both push streams are on $OTHER $(seconds_since "$killed") after the kill (the daemons reconnected through HAProxy)"
sync_file alpha beta plan.md $'# Plan\n- ship the cluster\n' "create"
sync_file beta alpha plan.md $'# Plan\n- ship the cluster\n- kill an instance: done\n' "edit"
LOGS=("$WORK/logs/haproxy.log")
until_ok 30 server_is "$VICTIM" DOWN || fail "HAProxy did not mark $VICTIM DOWN within 30 s of the kill"
LOGS=()
say "HAProxy marked $VICTIM DOWN (failed health checks) $(seconds_since "$killed") after the kill"
say "meanwhile $(($(server_field "$VICTIM" 8) - served_before)) requests were sent to $VICTIM, found it refusing and went on to $OTHER (redispatched: $(($(server_field "$VICTIM" 17) - redispatched_before))); requests: $(served)"

# ---------------------------------------------------------------------------------------
step "$VICTIM comes back on its port; HAProxy takes it in again"
started=$(now_ms)
port_var=PORT_$VICTIM
start_instance "$VICTIM" "${!port_var}"
wait_listening "$VICTIM"
LOGS=("$WORK/logs/haproxy.log" "$WORK/logs/$VICTIM.log")
until_ok 30 server_is "$VICTIM" UP || fail "HAProxy did not mark $VICTIM UP again within 30 s"
LOGS=()
say "$VICTIM (pid ${PID[$VICTIM]}) UP again $(seconds_since "$started") after its start"
before=$(server_field "$VICTIM" 8)
sync_file alpha beta todo.txt $'call Ana\n' "create"
sync_file beta alpha todo.txt $'call Ana\nbook the room\n' "edit"
say "requests $VICTIM served since it came back: $(($(server_field "$VICTIM" 8) - before))"

# ---------------------------------------------------------------------------------------
step "both folders hold the same files"
for device in alpha beta; do
  LOGS=("$WORK/logs/$device.log")
  "$BIN/docs-status" wait --timeout 60 --socket "$WORK/$device/control.sock" >"$WORK/logs/$device-wait.log" 2>&1 \
    || { LOGS+=("$WORK/logs/$device-wait.log"); fail "docsyncd $device did not settle (docs-status wait)"; }
done
LOGS=()
diff -r -x '.*' "$WORK/alpha/Documents" "$WORK/beta/Documents" >"$WORK/logs/diff.log" 2>&1 \
  || { LOGS=("$WORK/logs/diff.log"); fail "the two folders differ"; }
say "alpha and beta settled (docs-status wait), and hold the same $(find "$WORK/alpha/Documents" -type f ! -name '.*' | wc -l) files (diff -r)"
for device in alpha beta; do
  [ -z "$(grep -il 'error\|critical' "$WORK/logs/$device.log" || true)" ] \
    || say "note: $device's log has error lines (see DOCSYNC_CLUSTER_KEEP=1 to keep it): $(grep -ic 'error\|critical' "$WORK/logs/$device.log")"
done
