#!/usr/bin/env bash
# start-postgres.sh - a throwaway PostgreSQL server for docsync's tests, on 127.0.0.1 only.
#
# Makes (once) a cluster of its own in a private directory with initdb, starts it with
# pg_ctl, and makes a role and a database that log in with a password over TCP. The role
# may create databases (the scale-out tests make one each). Durability is off (fsync,
# synchronous_commit, full_page_writes): the data is scratch, and a loaded CI machine
# should not wait for disks. Installs Debian's postgresql-<version> when it is missing.
#
# Idempotent: when the server is up it only re-applies the role, database and password,
# checks a login and prints; when it runs on another port than asked, it is restarted.
#
# Settings (environment)                                      default
#   DOCSYNC_SERVICES_DIR  state directory (the cluster in pg/)   /tmp/docsync-services-<uid>
#   DOCSYNC_PG_PORT       TCP port on 127.0.0.1                  54329
#   DOCSYNC_PG_USER       role                                   docsync
#   DOCSYNC_PG_PASSWORD   its password                           docsync-secret
#   DOCSYNC_PG_DB         database                               docsync
#   DOCSYNC_PG_VERSION    PostgreSQL major version               15 (Debian 12's)
#
# As root, the server runs as the user postgres (PostgreSQL refuses to run as root); as
# any other user it runs as that user, and sudo is needed only to install the packages.
# Prints KEY=VALUE lines on stdout - DOCSYNC_TEST_POSTGRES_URL is the one the tests read;
# progress and errors go to stderr. stop.sh stops the server.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PG_PORT=${DOCSYNC_PG_PORT:-54329}
PG_USER=${DOCSYNC_PG_USER:-docsync}
PG_PASSWORD=${DOCSYNC_PG_PASSWORD:-docsync-secret}
PG_DB=${DOCSYNC_PG_DB:-docsync}
PG_VERSION=${DOCSYNC_PG_VERSION:-15}
BIN=/usr/lib/postgresql/$PG_VERSION/bin
DATA=$PG_DIR/data
SOCK=$PG_DIR/sock      # the Unix socket, for the superuser's setup below; private
[[ $PG_PORT =~ ^[0-9]+$ ]] && [ "$PG_PORT" -le 65535 ] || die "DOCSYNC_PG_PORT='$PG_PORT' is not a port number"
check_value DOCSYNC_PG_USER "$PG_USER"
check_value DOCSYNC_PG_PASSWORD "$PG_PASSWORD"
check_value DOCSYNC_PG_DB "$PG_DB"

# as_pg CMD...: runs CMD as the user the server runs as.
as_pg() {
  if is_root; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}
# Port the running server listens on (line 4 of postmaster.pid), if it runs.
running_port() {
  as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1 && sed -n 4p "$DATA/postmaster.pid"
}

# 1. Packages, when missing. Debian's package would also make and start a cluster 'main'
#    on port 5432, which nothing here needs: createcluster.conf says not to, if there is
#    none yet (an existing one, e.g. from postgresql-common, is left alone).
make_services_dir
if [ ! -x "$BIN/postgres" ] || [ ! -x "$BIN/initdb" ] || [ ! -x "$BIN/psql" ]; then
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    as_root sh -c 'mkdir -p /etc/postgresql-common &&
      echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf' || true
  fi
  apt_install "postgresql-$PG_VERSION" "postgresql-client-$PG_VERSION"
fi

# 2. The cluster, once: superuser postgres; over the socket (private directory) trusted,
#    over TCP a password (SCRAM); not synced to disk (-N).
mkdir -p "$PG_DIR"
if is_root; then chown postgres:postgres "$PG_DIR"; fi
chmod 700 "$PG_DIR"
as_pg test -w "$PG_DIR" || die "the user postgres cannot write $PG_DIR; set DOCSYNC_SERVICES_DIR to a directory under /tmp"
if [ ! -s "$DATA/PG_VERSION" ]; then
  log "creating a cluster in $DATA"
  rm -rf "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=trust --auth-host=scram-sha-256 -N >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
  echo "include_if_exists = 'docsync.conf'" >>"$DATA/postgresql.conf"
elif [ "$(cat "$DATA/PG_VERSION")" != "$PG_VERSION" ]; then
  die "$DATA holds a PostgreSQL $(cat "$DATA/PG_VERSION") cluster, not $PG_VERSION; remove it with: $(dirname "$0")/stop.sh --clean"
fi

# 3. Settings, rewritten every run (read at start; a port change restarts the server below).
as_pg mkdir -p "$SOCK"
cat >"$DATA/docsync.conf" <<CONF
# written by docsync's config/services/start-postgres.sh
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$SOCK'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
CONF
if is_root; then chown postgres:postgres "$DATA/docsync.conf"; fi

# 4. The server. pg_ctl -w returns once it accepts connections; a stale postmaster.pid (a
#    crash, a reboot) is pg_ctl's to handle.
port_now=$(running_port || true)
if [ -n "$port_now" ] && [ "$port_now" != "$PG_PORT" ]; then
  log "the server runs on port $port_now, not $PG_PORT: restarting it"
  as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null
  port_now=
fi
if [ -z "$port_now" ]; then
  check_port PostgreSQL "$PG_PORT" DOCSYNC_PG_PORT
  log "starting PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT"
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$PG_DIR/postgres.log" -w -t 60 start >/dev/null \
    || { tail -n 20 "$PG_DIR/postgres.log" >&2; die "PostgreSQL did not start (log: $PG_DIR/postgres.log)"; }
else
  log "PostgreSQL already runs on 127.0.0.1:$PG_PORT"
fi

# 5. Role and database (idempotent; the password is set again every run).
as_pg "$BIN/psql" -h "$SOCK" -p "$PG_PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
    -v u="$PG_USER" -v p="$PG_PASSWORD" -v d="$PG_DB" >/dev/null <<'SQL' || die "making the role and database failed"
SELECT format('CREATE ROLE %I LOGIN CREATEDB', :'u')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'u') \gexec
SELECT format('ALTER ROLE %I LOGIN CREATEDB PASSWORD %L', :'u', :'p') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'d', :'u')
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'d') \gexec
SQL

# 6. What the tests will do: log in with the password over TCP.
PGPASSWORD=$PG_PASSWORD PGCONNECT_TIMEOUT=10 "$BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" \
    -qAt -c 'select 1' >/dev/null || die "a password login over TCP failed"

cat <<OUT
DOCSYNC_TEST_POSTGRES_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB
DOCSYNC_PG_HOST=127.0.0.1
DOCSYNC_PG_PORT=$PG_PORT
DOCSYNC_PG_USER=$PG_USER
DOCSYNC_PG_PASSWORD=$PG_PASSWORD
DOCSYNC_PG_DB=$PG_DB
DOCSYNC_PG_PID=$(head -n 1 "$DATA/postmaster.pid")
DOCSYNC_PG_DIR=$PG_DIR
OUT
