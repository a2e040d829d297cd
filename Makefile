# docsync — the two commands a person needs are `make demo` and `make test`.
# Every target that builds first runs `deps`, which installs the C libraries
# the package links (with apt-get, through sudo when not root) if missing.

SWIFT        ?= swift
APT_PACKAGES := libinotifytools0-dev libsqlite3-dev libfuse3-dev fuse3 libdbus-1-dev dbus-daemon dbus-bin
SUDO         := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
# Swift Testing runs tests in parallel by default; two cores are all we have.
TEST_FLAGS   ?=
# Foundation's Process.run() on Linux reads 256 bytes past a /proc/self/fd entry
# (swift-corelibs-foundation PR #5472) and crashes when that entry ends a thread's malloc
# arena; with one arena (brk-grown, padded) the over-read stays in mapped memory. For the
# processes that spawn others: the test runner, the demo and the benchmark.
SPAWN_SAFE   := MALLOC_ARENA_MAX=1
# Swift Testing starts every test at once; 600 tests starting together on two cores keep
# one another from their first step for up to 30 s, which a test's own deadline then
# measures. 32 at a time finishes the suite as fast (102 s either way here) and starts each
# test within a second. (An experimental setting: a toolchain without it runs all at once.)
TEST_ENV     := $(SPAWN_SAFE) SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=32

PREFIX       ?= $(HOME)/.local
# rsync and cp are what the sync benchmark compares against.
BENCH_PACKAGES := rsync

## Services the tests use: PostgreSQL and an S3 store (OpenStack Swift with its S3 API) on
## 127.0.0.1, from Debian's packages (installed when missing), started by this repository's
## own scripts in config/services/ (their comments list the settings; state in
## /tmp/docsync-services-<uid>, PostgreSQL on port 54329, S3 on 8480 and the next four).
## `make test` starts them after building, runs the tests with their addresses in the
## environment (DOCSYNC_TEST_POSTGRES_URL, DOCSYNC_TEST_S3_ENDPOINT, _REGION, _ACCESS_KEY,
## _SECRET_KEY) and stops them again, pass or fail - also when they were already running.
## Ports taken by something else: make test DOCSYNC_PG_PORT=54339 DOCSYNC_S3_PORT=8490.
##
## services-up: start them and leave them running while you iterate; the variables are
##   printed and kept in .build/services/{postgres,s3}.env:
##     make services-up
##     set -a; . .build/services/postgres.env; . .build/services/s3.env; set +a
##     swift test --filter DocSyncScaleOutTests
## services-down: stop them (config/services/stop.sh --clean also removes their data).
SERVICES     := config/services
SERVICES_OUT := .build/services
# Both start side by side (their package installs, if any, take turns on a lock); each
# one's KEY=VALUE lines go to $(SERVICES_OUT)/NAME.env, moved into place only when complete.
START_SERVICES = mkdir -p $(SERVICES_OUT) && rm -f $(SERVICES_OUT)/*.env && \
	{ bash $(SERVICES)/start-postgres.sh > $(SERVICES_OUT)/postgres.env.new & pg=$$!; \
	  bash $(SERVICES)/start-s3.sh > $(SERVICES_OUT)/s3.env.new & s3=$$!; \
	  wait $$pg; pg=$$?; wait $$s3; s3=$$?; [ $$pg = 0 ] && [ $$s3 = 0 ]; } && \
	mv $(SERVICES_OUT)/postgres.env.new $(SERVICES_OUT)/postgres.env && \
	mv $(SERVICES_OUT)/s3.env.new $(SERVICES_OUT)/s3.env
LOAD_SERVICES  = set -a && . ./$(SERVICES_OUT)/postgres.env && . ./$(SERVICES_OUT)/s3.env && set +a
STOP_SERVICES  = bash $(SERVICES)/stop.sh; rm -f $(SERVICES_OUT)/*.env $(SERVICES_OUT)/*.env.new
# The recipe's shell stops them on its way out, whatever the way: an EXIT trap keeps the
# status of the last command (the tests'); on a signal it first lets a start still under
# way finish (background jobs ignore SIGINT), so that nothing is left behind.
SERVICES_TRAP  = trap '$(STOP_SERVICES)' EXIT; trap 'wait; exit 129' HUP; \
	trap 'wait; exit 130' INT; trap 'wait; exit 143' TERM

.PHONY: all deps build release test api-check soak demo cluster-demo bench bench-cluster bench-load bench-scale bench-merge bench-mount bench-page bench-cost install completions manpages clean services-up services-down

all: build

## deps: install the Debian packages the build links against, when missing.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## build: debug build of every product.
build: deps
	$(SWIFT) build

## release: optimized build (used by demo and bench).
release: deps
	$(SWIFT) build -c release

## test: the encryption format's known-answer vectors recomputed in Python
## (Tests/Encryption/check.sh), the whole test suite (unit, conformance, multi-process), then the API check
## (api-check below, on the docsync-server just built), then the tests against
## PostgreSQL and S3 (which it starts and stops: see services-up above), then the status
## sampled through a 256 MB sync (ALONE_TESTS), then the multi-device simulation on its own (its seeds keep both cores busy, which would starve the timed tests beside
## them). DOCSYNC_SEED=N make test replays one seed of the simulation.
# The tests of the scale-out store (PostgreSQL, S3, instances and their daemons) load the
# machine with the services' own work: they run on their own, after the others, so the
# timed tests of the first step keep the machine to themselves.
SERVICE_TESTS  = DocSyncScaleOutTests|DocSyncS3Tests|DocSyncSystemTests.ClusterSyncTests|DocSyncSystemTests.MigrationTests|DocSyncSystemTests.ScaleOutLeakTests
# Each step's output is also kept in .build/test-logs/STEP.log; a failing step ends by
# naming what failed again (Tests/run-logged.sh), so the tail of a CI log says it.
TEST_LOGGED    = bash Tests/run-logged.sh
# The status sampled every 10 ms through a 256 MB sync runs alone too: beside the suite, the
# daemons answer a status call in up to two seconds, and its writes load the timed tests.
ALONE_TESTS    = DocSyncSystemTests.StatusNeverLiesSystemTests
TEST_SUITE     = $(TEST_LOGGED) suite env $(TEST_ENV) $(SWIFT) test --skip-build --skip DocSyncSimulationTests --skip '$(SERVICE_TESTS)' --skip '$(ALONE_TESTS)' $(TEST_FLAGS)
TEST_ALONE     = $(TEST_LOGGED) alone env $(TEST_ENV) $(SWIFT) test --skip-build --filter '$(ALONE_TESTS)' $(TEST_FLAGS)
TEST_SERVICES  = $(TEST_LOGGED) services env $(TEST_ENV) $(SWIFT) test --skip-build --filter '$(SERVICE_TESTS)' $(TEST_FLAGS)
TEST_SIMULATION = $(TEST_LOGGED) simulation env $(TEST_ENV) $(SWIFT) test --skip-build --filter DocSyncSimulationTests $(TEST_FLAGS)
API_CHECK      = bash Tests/APIConformance/run.sh
ENCRYPTION_VECTORS = bash Tests/Encryption/check.sh
# HAProxy, openssl and curl: the test of two instances behind the balancer runs the shipped
# configuration (config/cluster/haproxy.cfg.template) with TLS. sqlite3, git, rsync and LibreOffice are the
# programs the on-demand mount's tests run inside a real FUSE mount (fuse3, /dev/fuse).
# prometheus: its promtool checks the daemon's /metrics. Chromium and its chromedriver: the status page's test drives it in a real browser
# (Tests/WebPage/drive.py, with selenium from pip: WEB_PAGE_INSTALL installs it when missing).
TEST_PACKAGES := haproxy openssl curl sqlite3 git rsync libreoffice-writer-nogui chromium chromium-driver prometheus
WEB_PAGE_INSTALL = bash Tests/WebPage/install.sh
test: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(TEST_PACKAGES)"
	@[ -e /dev/fuse ] || $(SUDO) modprobe fuse || echo "no /dev/fuse: the on-demand mount's tests are skipped"
	@# Open to every user, as a distribution's udev makes it (a bare VM may leave it root's):
	@# an ordinary user's daemon mounts through fusermount3, which opens it as that user.
	@[ ! -e /dev/fuse ] || [ "$$(stat -c %a /dev/fuse)" = 666 ] || $(SUDO) chmod 0666 /dev/fuse || true
	@$(WEB_PAGE_INSTALL)
	$(SWIFT) build --build-tests
	@$(SERVICES_TRAP); \
	echo "starting PostgreSQL and S3 ($(SERVICES)/start-*.sh; stopped again at the end)"; \
	$(START_SERVICES) && $(LOAD_SERVICES) && \
	echo "$(ENCRYPTION_VECTORS)" && $(ENCRYPTION_VECTORS) && \
	echo "$(TEST_SUITE)" && $(TEST_SUITE) && \
	echo "$(API_CHECK)" && $(API_CHECK) && \
	echo "$(TEST_SERVICES)" && $(TEST_SERVICES) && \
	echo "$(TEST_ALONE)" && $(TEST_ALONE) && \
	echo "$(TEST_SIMULATION)" && $(TEST_SIMULATION)

## api-check: Schemathesis over Sources/DocSyncServer/openapi.yaml against a real
## docsync-server: every phase (examples, coverage, fuzzing, stateful), every check, 0
## failures (Tests/APIConformance/run.sh; installs schemathesis with pip --user when missing;
## report in .build/api-check/). API_CHECK_EXAMPLES=N, API_CHECK_SEED=N|random vary it.
api-check: deps
	$(SWIFT) build --product docsync-server
	$(API_CHECK)

services-up:
	@$(START_SERVICES) || { $(STOP_SERVICES); exit 1; }
	@cat $(SERVICES_OUT)/postgres.env $(SERVICES_OUT)/s3.env
	@echo "(kept in $(SERVICES_OUT)/*.env; to use: set -a; . $(SERVICES_OUT)/postgres.env; . $(SERVICES_OUT)/s3.env; set +a)"

services-down:
	@$(STOP_SERVICES)

## soak: the multi-device simulation alone, over more seeds: make soak SEEDS=10000
## (FIRST=N starts elsewhere, OPS=N sets operations per seed). DOCSYNC_SEED=N replays one.
SEEDS ?= 2000
FIRST ?= 1
OPS   ?= 200
soak: deps
	$(SWIFT) build --build-tests
	DOCSYNC_SIM_SEEDS=$(SEEDS) DOCSYNC_SIM_FIRST_SEED=$(FIRST) DOCSYNC_SIM_OPS=$(OPS) \
	  $(TEST_ENV) $(SWIFT) test --skip-build --filter DocSyncSimulationTests $(TEST_FLAGS)

## demo: what docsync does: the embedded backend, then docsync-server and two daemons on loopback.
demo: release
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-demo

## cluster-demo: docsync-server as a cluster (README, "Running a cluster"): PostgreSQL and S3
## (config/services/, on ports and in a state directory of their own), two instances on one
## database and one bucket, HAProxy with TLS in front (config/cluster/haproxy.cfg.template),
## two daemons syncing through it, one instance killed with kill -9 and back. Installs
## haproxy, openssl and curl when missing; stops everything it started, pass or fail.
## Ports: DOCSYNC_PG_PORT, DOCSYNC_S3_PORT, DOCSYNC_CLUSTER_PORT (else the first free ones).
cluster-demo: release
	bash config/cluster/cluster-demo.sh

## bench: chunker throughput, the cost of a 1-byte edit to a 50 MB file, propagation
## between two daemons, an initial sync against rsync -a, metadata queries, the same
## with docsync-server between the daemons, the scale-out store and its load test
## (bench-cluster and bench-load below; it starts PostgreSQL and S3 as test does, and
## installs haproxy) and the scale part below (figures in .build/bench/). Not part of test.
bench: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES) haproxy openssl"
	@$(SERVICES_TRAP); $(START_SERVICES) && $(LOAD_SERVICES) && \
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench

## bench-cluster: the scale-out part alone (PostgreSQL and S3 started and stopped as for
## test): the initial sync through one instance beside the embedded store, statements and
## S3 requests per file, and a change's propagation across two instances (.build/bench/cluster.json).
bench-cluster: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES)"
	@$(SERVICES_TRAP); $(START_SERVICES) && $(LOAD_SERVICES) && \
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench --only cluster

## bench-load: the load test alone (PostgreSQL and S3 started and stopped as for test):
## 200 simulated devices (20 users × 10, one zone each; every device saves 3 small files and
## fetches the changes in a loop) against one scale-out instance, then against two behind
## HAProxy with TLS (config/cluster/haproxy.cfg.template): records/s, save and fetch p50/p99,
## errors, CPU of each process and of the machine (.build/bench/load.json). Installs haproxy
## and openssl when missing. LOAD_DEVICES=N and LOAD_SECONDS=N (per configuration) change it.
LOAD_DEVICES ?= 200
LOAD_SECONDS ?= 20
bench-load: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES) haproxy openssl"
	@$(SERVICES_TRAP); $(START_SERVICES) && $(LOAD_SERVICES) && \
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench --only load --load-devices $(LOAD_DEVICES) --load-seconds $(LOAD_SECONDS)

## bench-scale: the scale part alone: an initial sync of 100,000 and of 1,000,000 files
## through docsync-server beside rsync -a, the rate per tenth, restart, memory, a query and
## a change's latency (figures in .build/bench/scale.json; about 15 minutes, 20 GB of disk).
## SCALE_FILES=100000 measures one size.
SCALE_FILES ?= 100000,1000000
bench-scale: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES)"
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench --only scale --files $(SCALE_FILES)

## bench-merge: the line-wise text merge alone: a 1 MB text with 100 scattered edits per
## side (median time), 1,000 seeded random pairs of edits separated by unchanged lines (how
## many merge cleanly, their total time) and the worst case (every line moved on both sides).
bench-merge: release
	$(SWIFT) run -c release --skip-build docsync-bench --only merge

## bench-mount: the on-demand mount's figures (SPEC §14) against a plain directory: sequential
## reads of a 1 GiB file, ls -lR of 100,000 entries, git status in a 10,000-file repository,
## the first byte of a 50 MB file not local (Tests/OnDemandFigures/run.sh; as root: it drops
## the page cache between cold runs).
bench-mount: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) git bc"
	B=.build/release bash Tests/OnDemandFigures/run.sh

## bench-page: docsyncd's CPU-seconds over a 100,000-file folder, idle and syncing 2,000
## edits, with the status page's live feed open and closed (Tests/WebPage/page-cpu.sh).
bench-page: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) curl bc"
	B=.build/release bash Tests/WebPage/page-cpu.sh

## bench-cost: what an initial sync through docsync-server costs each process (sender,
## server, receiver): CPU-seconds (user, system) per 1,000 files and per 100 MB over 10,000
## small files and the bench tree, system calls per file (perf stat), instructions of a
## 2,000-file sync under callgrind, beside the data-path floor, rsync -a and Unison, and beside
## the release build of BASELINE (a commit; built once in .build-baseline-BASELINE/, which
## takes a while; BASELINE= measures this build alone). Figures in .build/bench/cost.json.
BASELINE      ?= e3be745
BASELINE_DIR  := .build-baseline-$(BASELINE)
bench-cost: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES) unison valgrind linux-perf binutils gcc"
	@if [ -n "$(BASELINE)" ]; then \
	  [ -d $(BASELINE_DIR) ] || git worktree add --detach $(BASELINE_DIR) $(BASELINE) || exit 1; \
	  $(SWIFT) build -c release --package-path $(BASELINE_DIR) || exit 1; fi
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench --only cost \
	  $(if $(BASELINE),--baseline $(BASELINE_DIR)/.build/release --baseline-label $(BASELINE))

## completions: bash, zsh and fish completion scripts of the three programs, written by the
## release binaries themselves (swift-argument-parser: PROGRAM --generate-completion-script
## SHELL) into .build/completions/{bash,zsh,fish}/ - never committed, made for install.
PROGRAMS     := docsyncd docs-status docsync-server
COMPLETIONS  := .build/completions
completions: release
	rm -rf $(COMPLETIONS) && mkdir -p $(COMPLETIONS)/bash $(COMPLETIONS)/zsh $(COMPLETIONS)/fish
	for p in $(PROGRAMS); do \
	  .build/release/$$p --generate-completion-script bash > $(COMPLETIONS)/bash/$$p && \
	  .build/release/$$p --generate-completion-script zsh > $(COMPLETIONS)/zsh/_$$p && \
	  .build/release/$$p --generate-completion-script fish > $(COMPLETIONS)/fish/$$p.fish || exit 1; \
	done

## manpages: a man page per program and per subcommand (docs-status.1, docs-status.wait.1,
## docsync-server.user.add.1, ...) into .build/man/, from the release binaries' own help, by
## swift-argument-parser's generate-manual plugin (offline: it builds from the checkout of
## swift-argument-parser the package already has). The plugin makes pages for every
## executable into its work directory (MANUAL_OUT), emptied first so that no page of a
## subcommand since removed is kept; blank lines become mdoc paragraphs (.Pp). Dated by the
## last commit, so two runs of one commit make the same pages.
MANPAGES     := .build/man
MANUAL_OUT   := .build/plugins/GenerateManual/outputs
MANUAL_DATE  = $$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
manpages: release
	rm -rf $(MANUAL_OUT) $(MANPAGES) && mkdir -p $(MANPAGES)
	$(SWIFT) package generate-manual --multi-page --date $(MANUAL_DATE)
	for p in $(PROGRAMS); do \
	  ls $(MANUAL_OUT)/$$p/$$p.1 > /dev/null || exit 1; \
	  for page in $(MANUAL_OUT)/$$p/*.1; do sed 's/^$$/.Pp/' $$page > $(MANPAGES)/$${page##*/} || exit 1; done; \
	done

## install: docsyncd, docs-status and docsync-server, stripped, into $(PREFIX)/bin (their
## sizes before and after stripping are printed); their completions into
## $(PREFIX)/share/bash-completion/completions, $(PREFIX)/share/zsh/site-functions and
## $(PREFIX)/share/fish/vendor_completions.d; their man pages into $(PREFIX)/share/man/man1;
## their systemd user units into ~/.config/systemd/user, and example configurations where
## none exist yet.
SHARE        = $(PREFIX)/share
install: release completions manpages
	install -d $(PREFIX)/bin $(HOME)/.config/systemd/user $(HOME)/.config/docsync
	install -m 0755 -s .build/release/docsyncd .build/release/docs-status .build/release/docsync-server $(PREFIX)/bin/
	@for p in $(PROGRAMS); do \
	  printf '%-15s %11d bytes built, %11d bytes installed (stripped)\n' $$p $$(wc -c < .build/release/$$p) $$(wc -c < $(PREFIX)/bin/$$p); \
	done
	install -d $(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d $(SHARE)/man/man1
	for p in $(PROGRAMS); do \
	  install -m 0644 $(COMPLETIONS)/bash/$$p $(SHARE)/bash-completion/completions/$$p && \
	  install -m 0644 $(COMPLETIONS)/zsh/_$$p $(SHARE)/zsh/site-functions/_$$p && \
	  install -m 0644 $(COMPLETIONS)/fish/$$p.fish $(SHARE)/fish/vendor_completions.d/$$p.fish || exit 1; \
	done
	install -m 0644 $(MANPAGES)/*.1 $(SHARE)/man/man1/
	for unit in docsyncd docsync-server; do \
	  sed 's|%h/.local/bin|$(PREFIX)/bin|' config/$$unit.service > $(HOME)/.config/systemd/user/$$unit.service; \
	done
	[ -e $(HOME)/.config/docsync/docsync.toml ] || install -m 0644 config/docsync.example.toml $(HOME)/.config/docsync/docsync.toml
	[ -e $(HOME)/.config/docsync/docsync-server.toml ] || install -m 0644 config/docsync-server.example.toml $(HOME)/.config/docsync/docsync-server.toml
	@echo "installed into $(PREFIX)/bin, $(SHARE) (completions, man pages) and ~/.config/systemd/user."
	@echo "this machine syncing: edit ~/.config/docsync/docsync.toml, then: systemctl --user enable --now docsyncd"
	@echo "this machine serving: docsync-server user add NAME, then: systemctl --user enable --now docsync-server"

clean:
	rm -rf .build
