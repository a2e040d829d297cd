#!/usr/bin/env bash
# What the status page's browser test (Tests/DocSyncSystemTests/WebPageBrowserSystemTests.swift,
# which runs Tests/WebPage/drive.py) needs beyond Debian's chromium and chromium-driver (the
# Makefile's TEST_PACKAGES install those): selenium for the python3 on PATH, installed with
# `pip install --user` when `import selenium` fails (python3-pip first, when pip is missing).
# Selenium runs offline there (SE_OFFLINE=true): it drives /usr/bin/chromedriver and never
# downloads a driver or a browser. Called by `make test` before the tests run.
set -euo pipefail

if python3 -c 'import selenium' 2> /dev/null; then
  exit 0
fi
echo "web-page test: installing selenium (pip install --user)"
if ! python3 -m pip --version > /dev/null 2>&1; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip
fi
pip=(python3 -m pip install --user --quiet --disable-pip-version-check --no-input --no-warn-script-location 'selenium>=4.16,<5')
# A Python that its distribution manages (PEP 668) takes --user installs only when told so.
"${pip[@]}" 2> /dev/null || "${pip[@]}" --break-system-packages
python3 -c 'import selenium' || { echo "web-page test: python3 cannot import selenium after installing it" >&2; exit 2; }
