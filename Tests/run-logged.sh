#!/usr/bin/env bash
# Runs one step of `make test` (a command and its arguments), its output shown as it comes
# and kept in .build/test-logs/NAME.log. When the step fails, the lines that say what failed
# (Swift Testing's ✘ lines, crashes) are printed again at the very end, since a CI log is
# often read from its tail. Exits with the step's status.
set -uo pipefail
name=$1
shift
mkdir -p .build/test-logs
log=.build/test-logs/$name.log
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "=== $name failed (exit $status); what failed, again (the whole output is in $log):"
    grep -E '✘|Fatal error|Unexpected signal|unexpected signal|Crash|panic' "$log" | tail -40 | cut -c1-700
fi
exit "$status"
