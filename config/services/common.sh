# common.sh - helpers shared by start-postgres.sh, start-s3.sh and stop.sh (sourced, not run).
#
# The services keep their state under one directory per user, so root and another user
# (or two checkouts) never share one: DOCSYNC_SERVICES_DIR, by default
# /tmp/docsync-services-<uid>. Set it, and the ports, to run a second set beside the first.
# PostgreSQL's cluster goes in its pg/, the S3 store in its s3/.

SERVICES_DIR=${DOCSYNC_SERVICES_DIR:-/tmp/docsync-services-$(id -u)}
PG_DIR=$SERVICES_DIR/pg
S3_DIR=$SERVICES_DIR/s3

# SCRIPT names the script in messages; progress and errors go to stderr, never stdout
# (stdout carries only the KEY=VALUE lines).
SCRIPT=$(basename "$0" .sh)
log() { echo "$SCRIPT: $*" >&2; }
die() { log "$*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# as_root CMD...: runs CMD as root: directly when root, else through sudo - without asking
# for a password when there is no terminal to ask on (CI), so it fails instead of hanging.
as_root() {
  if is_root; then "$@"
  elif ! command -v sudo >/dev/null 2>&1; then return 127
  elif (: </dev/tty) 2>/dev/null; then sudo "$@"
  else sudo -n "$@"
  fi
}

# make_services_dir: creates the state directory, refusing one that another user owns
# (a directory in /tmp that someone else made first could be a trap). Root opens it to
# traversal (mode 711) so that the user postgres reaches its pg/ below.
make_services_dir() {
  mkdir -p "$SERVICES_DIR" || die "cannot create $SERVICES_DIR"
  [ -O "$SERVICES_DIR" ] || die "$SERVICES_DIR belongs to another user; set DOCSYNC_SERVICES_DIR to a directory of yours"
  if is_root; then chmod 711 "$SERVICES_DIR"; else chmod 700 "$SERVICES_DIR"; fi
}

# apt_install PKG...: installs Debian packages, through sudo when not root. A plain
# install first; apt-get update and a second try only when that fails (a stale package
# list is the usual reason). start-postgres.sh and start-s3.sh may run side by side
# (make test starts them so): their installs take turns on a lock file in SERVICES_DIR.
apt_install() {
  local apt_log=$SERVICES_DIR/apt-$SCRIPT.log lock
  local by_hand="apt-get install -y --no-install-recommends $*"
  if ! is_root && ! command -v sudo >/dev/null 2>&1; then
    die "the Debian packages $* are missing and there is no sudo to install them; as root, run: $by_hand"
  fi
  log "installing $* (log: $apt_log)"
  exec {lock}>"$SERVICES_DIR/apt.lock"
  flock "$lock"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends
             -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  local ok=0
  if as_root "${apt[@]}" install "$@" >"$apt_log" 2>&1; then ok=1
  elif as_root "${apt[@]}" update >>"$apt_log" 2>&1 && as_root "${apt[@]}" install "$@" >>"$apt_log" 2>&1; then ok=1
  fi
  exec {lock}>&-
  [ "$ok" = 1 ] || { tail -n 5 "$apt_log" >&2; die "apt-get failed (log: $apt_log); install them by hand: ${SUDO_HINT}$by_hand"; }
}
is_root && SUDO_HINT= || SUDO_HINT="sudo "

# port_busy PORT: whether something accepts TCP connections on 127.0.0.1:PORT.
port_busy() { timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }

# check_port NAME PORT SETTING: fails, saying how to choose another, when PORT is taken
# by something this script did not start.
check_port() {
  if port_busy "$2"; then
    die "port $2 on 127.0.0.1 (for $1) is in use by a program these scripts did not start; stop it or choose another port: $3=NNNN (also as make test $3=NNNN)"
  fi
}

# check_value NAME VALUE [EXTRA]: the values go into URLs and into KEY=VALUE files that
# shells source, so they are kept to letters, digits, . _ ~ - (and EXTRA).
check_value() {
  local re="^[A-Za-z0-9._~${3:-}-]+\$"
  [[ $2 =~ $re ]] || die "$1='$2': use only letters, digits and . _ ~ - ${3:+$3 }in it"
}

# is_ours PIDFILE PATTERN: whether the process whose id PIDFILE holds is alive and its
# command line contains PATTERN (a pid file left by a crash may name a reused id).
is_ours() {
  local pid
  pid=$(head -n 1 "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$2"
}

# alive PID: whether the process runs (a zombie, ended but not yet reaped, does not).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# stop_pid NAME PID: SIGTERM, then SIGKILL after 10 s. Root may signal the processes it
# started as other users (memcached runs as memcache).
stop_pid() {
  local pid=$2
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 100); do
    alive "$pid" || { log "stopped $1 ($pid)"; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  log "killed $1 ($pid): it did not end within 10 s of SIGTERM"
}
