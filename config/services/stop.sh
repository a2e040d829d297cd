#!/usr/bin/env bash
# stop.sh - stops what start-postgres.sh and start-s3.sh started, and nothing else: the
# processes named by their pid files in DOCSYNC_SERVICES_DIR (default
# /tmp/docsync-services-<uid>), each checked against its command line first (a pid file
# left by a crash may name a process that has nothing to do with us). Succeeds when
# nothing runs. Progress goes to stderr.
#
# Usage: stop.sh [--clean]     --clean also removes the state directory (the cluster,
#                              the stored objects, configuration and logs).
set -uo pipefail
. "$(dirname "$0")/common.sh"

clean=
case ${1:-} in
  --clean) clean=1 ;;
  "") ;;
  *) echo "usage: $0 [--clean]" >&2; exit 2 ;;
esac

# The S3 store: one pid file per process; the proxy first, so nothing reaches the backends.
RUN=$S3_DIR/run
stopped=
for name in proxy object container account memcached; do
  f=$RUN/$name.pid
  [ -f "$f" ] || continue
  if [ "$name" = memcached ]; then what=memcached; else what="$S3_DIR/etc/$name-server.conf"; fi
  if is_ours "$f" "$what"; then stop_pid "$name" "$(head -n 1 "$f")"; stopped=1; fi
  rm -f "$f"
done

# PostgreSQL: pg_ctl stops the server of this data directory (the postmaster in its
# postmaster.pid), as the user it runs as; signals by pid if pg_ctl fails.
DATA=$PG_DIR/data
if [ -f "$DATA/postmaster.pid" ] && is_ours "$DATA/postmaster.pid" "$DATA"; then
  pid=$(head -n 1 "$DATA/postmaster.pid")
  BIN=/usr/lib/postgresql/$(cat "$DATA/PG_VERSION")/bin
  if is_root; then as_pg=(runuser -u postgres --); else as_pg=(); fi
  if (cd / && "${as_pg[@]}" "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null 2>&1); then
    log "stopped postgres ($pid)"
  else
    stop_pid postgres "$pid"
  fi
  stopped=1
fi
[ -n "$stopped" ] || log "nothing of ours was running (state: $SERVICES_DIR)"

# Only what the start scripts made, so a mistaken DOCSYNC_SERVICES_DIR loses nothing else.
if [ -n "$clean" ] && [ -d "$SERVICES_DIR" ]; then
  rm -rf "$PG_DIR" "$S3_DIR" "$SERVICES_DIR"/apt-start-postgres.log "$SERVICES_DIR"/apt-start-s3.log "$SERVICES_DIR"/apt.lock
  rmdir "$SERVICES_DIR" 2>/dev/null || true
  log "removed the state in $SERVICES_DIR"
fi
exit 0
