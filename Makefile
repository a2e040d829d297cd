# docsync — the two commands a person needs are `make demo` and `make test`.
# Every target that builds first runs `deps`, which installs the C libraries
# the package links (with apt-get, through sudo when not root) if missing.

SWIFT        ?= swift
APT_PACKAGES := libinotifytools0-dev libsqlite3-dev
SUDO         := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
# Swift Testing runs tests in parallel by default; two cores are all we have.
TEST_FLAGS   ?=
# Foundation's Process.run() on Linux reads 256 bytes past a /proc/self/fd entry
# (swift-corelibs-foundation PR #5472) and crashes when that entry ends a thread's malloc
# arena; with one arena (brk-grown, padded) the over-read stays in mapped memory. For the
# processes that spawn others: the test runner, the demo and the benchmark.
SPAWN_SAFE   := MALLOC_ARENA_MAX=1

PREFIX       ?= $(HOME)/.local
# rsync and cp are what the sync benchmark compares against.
BENCH_PACKAGES := rsync

.PHONY: all deps build release test soak demo bench bench-scale install clean

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

## test: the whole test suite (unit, conformance, multi-process), then the multi-device
## simulation on its own (its seeds keep both cores busy, which would starve the timed
## tests beside them). DOCSYNC_SEED=N make test replays one seed of the simulation.
test: deps
	$(SWIFT) build --build-tests
	$(SPAWN_SAFE) $(SWIFT) test --skip-build --skip DocSyncSimulationTests $(TEST_FLAGS)
	$(SPAWN_SAFE) $(SWIFT) test --skip-build --filter DocSyncSimulationTests $(TEST_FLAGS)

## soak: the multi-device simulation alone, over more seeds: make soak SEEDS=10000
## (FIRST=N starts elsewhere, OPS=N sets operations per seed). DOCSYNC_SEED=N replays one.
SEEDS ?= 2000
FIRST ?= 1
OPS   ?= 200
soak: deps
	$(SWIFT) build --build-tests
	DOCSYNC_SIM_SEEDS=$(SEEDS) DOCSYNC_SIM_FIRST_SEED=$(FIRST) DOCSYNC_SIM_OPS=$(OPS) \
	  $(SPAWN_SAFE) $(SWIFT) test --skip-build --filter DocSyncSimulationTests $(TEST_FLAGS)

## demo: what docsync does: the embedded backend, then docsync-server and two daemons on loopback.
demo: release
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-demo

## bench: chunker throughput, the cost of a 1-byte edit to a 50 MB file, propagation
## between two daemons, an initial sync against rsync -a, metadata queries, the same
## with docsync-server between the daemons, and the scale part below (figures in
## .build/bench/). Not part of test.
bench: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES)"
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench

## bench-scale: the scale part alone: an initial sync of 100,000 and of 1,000,000 files
## through docsync-server beside rsync -a, the rate per tenth, restart, memory, a query and
## a change's latency (figures in .build/bench/scale.json; about 15 minutes, 20 GB of disk).
## SCALE_FILES=100000 measures one size.
SCALE_FILES ?= 100000,1000000
bench-scale: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES)"
	$(SPAWN_SAFE) $(SWIFT) run -c release --skip-build docsync-bench --only scale --files $(SCALE_FILES)

## install: docsyncd, docs-status and docsync-server into $(PREFIX)/bin, their systemd user
## units into ~/.config/systemd/user, and example configurations where none exist yet.
install: release
	install -d $(PREFIX)/bin $(HOME)/.config/systemd/user $(HOME)/.config/docsync
	install -m 0755 .build/release/docsyncd .build/release/docs-status .build/release/docsync-server $(PREFIX)/bin/
	for unit in docsyncd docsync-server; do \
	  sed 's|%h/.local/bin|$(PREFIX)/bin|' config/$$unit.service > $(HOME)/.config/systemd/user/$$unit.service; \
	done
	[ -e $(HOME)/.config/docsync/docsync.toml ] || install -m 0644 config/docsync.example.toml $(HOME)/.config/docsync/docsync.toml
	[ -e $(HOME)/.config/docsync/docsync-server.toml ] || install -m 0644 config/docsync-server.example.toml $(HOME)/.config/docsync/docsync-server.toml
	@echo "installed into $(PREFIX)/bin and ~/.config/systemd/user."
	@echo "this machine syncing: edit ~/.config/docsync/docsync.toml, then: systemctl --user enable --now docsyncd"
	@echo "this machine serving: docsync-server user add NAME, then: systemctl --user enable --now docsync-server"

clean:
	rm -rf .build
