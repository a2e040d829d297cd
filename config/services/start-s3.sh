#!/usr/bin/env bash
# start-s3.sh - a throwaway S3 store for docsync's tests, on 127.0.0.1 only: OpenStack
# Swift all-in-one (Debian's packages) with its S3 API (s3api: SigV4 and SigV2, path-style
# addressing; credentials from tempauth) and memcached beside it.
#
# Swift runs as five processes, one worker each: the proxy (the S3 endpoint), the object,
# container and account servers, and memcached; the data lives in one plain directory
# (one replica, rings of 64 partitions). Installs the packages when they are missing.
#
# The proxy opens a new connection to the object, container or account server for every
# request it makes of them (Swift keeps no pool of them): under load, hundreds of sockets
# to ports DOCSYNC_S3_PORT+1 to +3 sit in TIME-WAIT. Those are the store's own; its clients'
# connections to DOCSYNC_S3_PORT are kept and reused (204 small requests one after another
# took 1 connection to the endpoint and about 420 from the proxy to the backends). The
# proxy closes a client's connection after 60 s idle (client_timeout).
#
# Idempotent: processes of a previous run that are still up are kept (checked by pid file
# and command line) and only missing ones started; when the port or keys changed, the
# old ones are stopped first.
#
# Settings (environment)                                        default
#   DOCSYNC_SERVICES_DIR    state directory (this store in s3/)    /tmp/docsync-services-<uid>
#   DOCSYNC_S3_PORT         the S3 endpoint's port; the backends    8480
#                           take the next three, memcached the 4th
#   DOCSYNC_S3_ACCESS_KEY   access key, tempauth's account:user    docsync:admin
#   DOCSYNC_S3_SECRET_KEY   secret key                             docsync-s3-secret
#   DOCSYNC_S3_REGION       region                                 us-east-1
#
# Runs as root or as any other user (sudo only to install the packages). Prints KEY=VALUE
# lines on stdout - DOCSYNC_TEST_S3_ENDPOINT, _REGION, _ACCESS_KEY and _SECRET_KEY are
# the ones the tests read; progress and errors go to stderr. stop.sh stops the processes.
#
# Known limits of this store (Swift 2.30's s3api): a conditional PUT (If-None-Match: *,
# If-Match) answers 501; aws-chunked streaming uploads are refused. Multipart uploads,
# ranged GETs, ListObjectsV2 with continuation, presigned URLs and Content-MD5 work.
set -euo pipefail
. "$(dirname "$0")/common.sh"

S3_PORT=${DOCSYNC_S3_PORT:-8480}
S3_ACCESS_KEY=${DOCSYNC_S3_ACCESS_KEY:-docsync:admin}
S3_SECRET_KEY=${DOCSYNC_S3_SECRET_KEY:-docsync-s3-secret}
S3_REGION=${DOCSYNC_S3_REGION:-us-east-1}
[[ $S3_PORT =~ ^[0-9]+$ ]] && [ "$S3_PORT" -le 65531 ] || die "DOCSYNC_S3_PORT='$S3_PORT' is not a port number (up to 65531)"
check_value DOCSYNC_S3_ACCESS_KEY "$S3_ACCESS_KEY" :
check_value DOCSYNC_S3_SECRET_KEY "$S3_SECRET_KEY"
check_value DOCSYNC_S3_REGION "$S3_REGION"
[[ $S3_ACCESS_KEY == ?*:?* && $S3_ACCESS_KEY != *:*:* ]] || die "DOCSYNC_S3_ACCESS_KEY='$S3_ACCESS_KEY': it must be account:user"
OBJ_PORT=$((S3_PORT + 1)); CONT_PORT=$((S3_PORT + 2)); ACCT_PORT=$((S3_PORT + 3)); MC_PORT=$((S3_PORT + 4))
ETC=$S3_DIR/etc; SRV=$S3_DIR/srv; LOG=$S3_DIR/log; RUN=$S3_DIR/run
# The processes, in start order, and what identifies each in its command line.
SERVICES=(memcached account container object proxy)
pattern() { if [ "$1" = memcached ]; then echo "-p $MC_PORT "; else echo "$ETC/$1-server.conf"; fi; }
port_of() { case $1 in memcached) echo "$MC_PORT";; account) echo "$ACCT_PORT";; container) echo "$CONT_PORT";;
                       object) echo "$OBJ_PORT";; proxy) echo "$S3_PORT";; esac; }

# http_status PORT PATH: the status code of a GET on 127.0.0.1:PORT (empty when no answer).
http_status() {
  timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" "$2" >&3
    read -r _ code _ <&3 && echo "$code"' _ "$1" "$2" 2>/dev/null || true
}

# 1. Packages, when missing.
PKGS=(python3-swift swift swift-proxy swift-object swift-container swift-account memcached)
make_services_dir
installed=$(dpkg-query -W -f='${Status}\n' "${PKGS[@]}" 2>/dev/null | grep -c 'install ok installed' || true)
if [ "$installed" -ne "${#PKGS[@]}" ]; then apt_install "${PKGS[@]}"; fi

mkdir -p "$ETC" "$SRV/d1" "$LOG" "$RUN"

# 2. What this run wants; processes started with other settings are stopped first.
settings="port=$S3_PORT access=$S3_ACCESS_KEY secret=$S3_SECRET_KEY region=$S3_REGION"
if [ -f "$RUN/settings" ] && [ "$(cat "$RUN/settings")" != "$settings" ]; then
  for f in "$RUN"/*.pid; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .pid)
    # the old command lines hold the old memcached port, so identify by the conf path or memcached's name
    if is_ours "$f" "$ETC/$name-server.conf" || { [ "$name" = memcached ] && is_ours "$f" memcached; }; then
      log "settings changed: stopping the old $name"
      stop_pid "$name" "$(head -n 1 "$f")"
    fi
    rm -f "$f"
  done
fi

# 3. Configuration, rewritten every run (cheap; keeps ports and keys in step).
USER_NAME=$(id -un)     # Swift's servers switch to this user; as root, they stay root
ACCOUNT=${S3_ACCESS_KEY%%:*}; S3_USER=${S3_ACCESS_KEY#*:}
cat >"$ETC/swift.conf" <<CONF
[swift-hash]
swift_hash_path_suffix = docsync-test-suffix
swift_hash_path_prefix = docsync-test-prefix
[storage-policy:0]
name = Policy-0
default = yes
CONF
backend_conf() { # NAME PORT
  cat >"$ETC/$1-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $2
workers = 0
user = $USER_NAME
swift_dir = $ETC
devices = $SRV
mount_check = false
log_level = WARNING
[pipeline:main]
pipeline = $1-server
[app:$1-server]
use = egg:swift#$1
recon_cache_path = $S3_DIR/cache
CONF
}
backend_conf object "$OBJ_PORT"; backend_conf container "$CONT_PORT"; backend_conf account "$ACCT_PORT"
mkdir -p "$S3_DIR/cache"
cat >"$ETC/proxy-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $S3_PORT
workers = 0
user = $USER_NAME
swift_dir = $ETC
log_level = WARNING
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:s3api]
use = egg:swift#s3api
location = $S3_REGION
[filter:tempauth]
use = egg:swift#tempauth
user_${ACCOUNT}_${S3_USER} = $S3_SECRET_KEY .admin
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MC_PORT
[filter:proxy-logging]
use = egg:swift#proxy_logging
CONF
for f in catch_errors gatekeeper healthcheck listing_formats copy slo dlo; do
  printf '[filter:%s]\nuse = egg:swift#%s\n' "$f" "$f"
done >>"$ETC/proxy-server.conf"

# 4. Rings: one replica, 2^6 partitions, one device (a directory), built when missing or
#    when the backends' ports moved; the three in parallel.
build_ring() { # NAME PORT
  cd "$ETC" && rm -f "$1.builder" "$1.ring.gz" \
    && swift-ring-builder "$1.builder" create 6 1 0 >/dev/null \
    && swift-ring-builder "$1.builder" add "r1z1-127.0.0.1:$2/d1" 100 >/dev/null \
    && { swift-ring-builder "$1.builder" rebalance >/dev/null || [ $? -eq 1 ]; }  # 1: warnings only
}
[ "$(cat "$ETC/ring-ports" 2>/dev/null || true)" = "$S3_PORT" ] || rm -f "$ETC"/*.ring.gz
ring_jobs=()
for name in object container account; do
  [ -f "$ETC/$name.ring.gz" ] || { build_ring "$name" "$(port_of "$name")" & ring_jobs+=($!); }
done
for j in "${ring_jobs[@]}"; do wait "$j" || die "building a ring failed"; done
echo "$S3_PORT" >"$ETC/ring-ports"

# 5. The processes, detached (own session, output to log/), one pid file each in run/.
#    memcached keeps tempauth's tokens for Swift's own API; S3 requests are signed instead.
started=0
for name in "${SERVICES[@]}"; do
  if is_ours "$RUN/$name.pid" "$(pattern "$name")"; then continue; fi
  check_port "the store's $name (it takes DOCSYNC_S3_PORT to DOCSYNC_S3_PORT+4)" "$(port_of "$name")" DOCSYNC_S3_PORT
  if [ "$name" = memcached ]; then
    cmd=(memcached -l 127.0.0.1 -p "$MC_PORT" -U 0 -m 64)
    if is_root; then cmd+=(-u memcache); fi
  else
    cmd=("swift-$name-server" "$ETC/$name-server.conf" -v)
  fi
  setsid nohup "${cmd[@]}" </dev/null >>"$LOG/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
  started=$((started + 1))
done
echo "$settings" >"$RUN/settings"
if [ "$started" -gt 0 ]; then log "started $started process(es) on 127.0.0.1:$S3_PORT-$MC_PORT; waiting for them"
else log "already running on 127.0.0.1:$S3_PORT"; fi

# 6. Up when the proxy's healthcheck says 200, the backends answer HTTP and memcached
#    takes connections (up to 60 s: Python's start is slow on a loaded machine).
up() {
  [ "$(http_status "$S3_PORT" /healthcheck)" = 200 ] || return 1
  local p
  for p in "$OBJ_PORT" "$CONT_PORT" "$ACCT_PORT"; do [ -n "$(http_status "$p" /)" ] || return 1; done
  port_busy "$MC_PORT"
}
ready=
for _ in $(seq 1 300); do
  if up; then ready=1; break; fi
  for name in "${SERVICES[@]}"; do   # a process that died will not come up
    is_ours "$RUN/$name.pid" "$(pattern "$name")" || { tail -n 20 "$LOG/$name.log" >&2; die "$name exited (log: $LOG/$name.log)"; }
  done
  sleep 0.2
done
[ -n "$ready" ] || { tail -n 5 "$LOG"/*.log >&2; die "the S3 store did not come up within 60 s (logs: $LOG)"; }

cat <<OUT
DOCSYNC_TEST_S3_ENDPOINT=http://127.0.0.1:$S3_PORT
DOCSYNC_TEST_S3_REGION=$S3_REGION
DOCSYNC_TEST_S3_ACCESS_KEY=$S3_ACCESS_KEY
DOCSYNC_TEST_S3_SECRET_KEY=$S3_SECRET_KEY
DOCSYNC_S3_PORT=$S3_PORT
DOCSYNC_S3_ADDRESSING=path
DOCSYNC_S3_SWIFT_AUTH_URL=http://127.0.0.1:$S3_PORT/auth/v1.0
DOCSYNC_S3_PIDS=$(cat "$RUN"/*.pid | paste -sd, -)
DOCSYNC_S3_DIR=$S3_DIR
OUT
