#!/usr/bin/env bash
# make test's encryption-vectors step: Python's `cryptography`, following the README's
# "Encryption format" alone, must compute exactly the known-answer vectors the Swift tests
# check (Tests/DocSyncCoreTests/Fixtures/encryption-vectors.json). Installs `cryptography`
# with `pip install --user` when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! python3 -c 'import cryptography' 2> /dev/null; then
  echo "encryption-vectors: installing cryptography (pip install --user)"
  if ! python3 -m pip --version > /dev/null 2>&1; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip
  fi
  pip=(python3 -m pip install --user --quiet --disable-pip-version-check --no-input cryptography)
  # A Python that its distribution manages (PEP 668) takes --user installs only when told so.
  "${pip[@]}" 2> /dev/null || "${pip[@]}" --break-system-packages
fi
if python3 "$root/Tests/Encryption/known_answers.py" --check; then
  echo "encryption-vectors: Python's cryptography computes the same bytes as the fixture"
else
  echo "encryption-vectors: Tests/Encryption/known_answers.py computes other bytes than Tests/DocSyncCoreTests/Fixtures/encryption-vectors.json" >&2
  exit 1
fi
