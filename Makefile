# pi-relayd: build, run and test. CI runs `make test` through .ci/run.

SWIFT ?= swift
PYTHON ?= python3

# What the build needs from the system (Debian/Ubuntu names): libcurl and libyaml for the
# CCurl/CLibYAML modules, pkg-config to find them, python3 for the fakes and the example plugin.
APT_PACKAGES := libcurl4-openssl-dev libyaml-dev pkg-config python3

DEBUG_DIR := .build/debug
RELEASE_DIR := .build/release
# The bundled plugins pi-relayd finds beside itself (see docs/PROTOCOL.md, section 1).
BUNDLED_PLUGINS := discord formatter attachments
FAKE_SELFTESTS := Tests/Fakes/plugins/selftest.py Tests/Fakes/fake-pi/selftest.py Tests/Fakes/fake_discord/selftest.py

.PHONY: deps build run test release bench clean

deps:
	@command -v dpkg >/dev/null 2>&1 || { echo "make deps: no dpkg here; install $(APT_PACKAGES) (or your system's equivalents) yourself"; exit 0; }; \
	missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg -s $$p 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "make deps: installing$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y$$missing; \
	else \
		echo "make deps: missing system packages:$$missing"; \
		echo "install them with:"; \
		echo "    sudo apt-get install -y$$missing"; \
		exit 1; \
	fi

# Relative links, so the folder keeps working if the build directory moves.
define bundle
	@mkdir -p $(1)/pi-relayd-plugins
	@for p in $(BUNDLED_PLUGINS); do ln -sfn ../pi-relay-$$p $(1)/pi-relayd-plugins/$$p; done
endef

build: deps
	$(SWIFT) build
	$(call bundle,$(DEBUG_DIR))

run: build
	exec $(DEBUG_DIR)/pi-relayd start --foreground

# The fakes' own self-tests go first: a broken fake would make the integration tests fail for
# reasons that have nothing to do with pi-relayd.
test: deps
	$(SWIFT) build --build-tests
	$(call bundle,$(DEBUG_DIR))
	@for t in $(FAKE_SELFTESTS); do \
		if [ -f $$t ]; then echo "== $$t"; $(PYTHON) $$t || exit 1; fi; \
	done
	$(SWIFT) test --skip-build

release: deps
	$(SWIFT) build -c release
	$(call bundle,$(RELEASE_DIR))

bench: release
	$(PYTHON) bench/bench.py --bin $(RELEASE_DIR)

clean:
	$(SWIFT) package clean
	rm -rf $(DEBUG_DIR)/pi-relayd-plugins $(RELEASE_DIR)/pi-relayd-plugins bench/work
