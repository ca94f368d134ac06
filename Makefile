# Convenience wrapper around CMake. `make test` is the README's test command
# and what CI runs: bootstrap, configure, build, run every test (unit, netns,
# e2e, fuzz corpus replay, bench smoke, the Debian package test) and end with
# ctest's summary; then the unit, netns and e2e tiers again under ASan+UBSan;
# then a Release build (what a packager runs first: -O2 with _FORTIFY_SOURCE,
# warnings are errors) and its unit tier.

BUILD ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
JOBS ?= 2
CMAKE_FLAGS ?=
# `make install`: DESTDIR is honoured; PREFIX overrides the configured prefix
# (CMAKE_INSTALL_PREFIX, default /usr/local) for this install.
DESTDIR ?=
PREFIX ?=
# `make deb`: where the package puts the plugins (absolute).
DEB_CNI_BINDIR ?= /opt/cni/bin

.PHONY: all bootstrap configure build install deb test test-fast test-asan test-release test-fuzz demo demo-bridge bench fuzz format clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

configure: bootstrap
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Plugins into PODWIRE_CNI_BINDIR (default <prefix>/libexec/cni; configure
# with CMAKE_FLAGS=-DPODWIRE_CNI_BINDIR=/opt/cni/bin for containerd's default),
# tools into <prefix>/bin, docs and examples into <prefix>/share/doc/podwire.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) $(if $(PREFIX),--prefix "$(PREFIX)")

# The Debian package, from a Release tree of its own: $(BUILD)/deb/podwire_<version>_<arch>.deb.
deb: bootstrap
	DEB_CNI_BINDIR="$(DEB_CNI_BINDIR)" JOBS=$(JOBS) bash packaging/build-deb.sh $(BUILD)/deb $(CMAKE_FLAGS)

# Every tier in one ctest run; the summary line is ctest's.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j1
	$(MAKE) test-asan
	$(MAKE) test-release
	$(MAKE) test-fuzz

# Unit tests only (no root needed).
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -L unit

test-asan: bootstrap
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCNI_SANITIZE=address,undefined $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j1 -L 'unit|netns|e2e'

# Every build type must build warning-free; the default is RelWithDebInfo and
# test-asan builds Debug, so this adds Release (about 30 s of build, 6 s of
# unit tests on the 2-core VM).
test-release: bootstrap
	cmake -S . -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(RELEASE_BUILD) -j$(JOBS)
	ctest --test-dir $(RELEASE_BUILD) --output-on-failure -j1 -L unit

# The clang libFuzzer build (its own warnings, -Werror too) and every target
# for 2 s on its seeds: a few minutes, so the fuzz build cannot rot unseen.
test-fuzz:
	FUZZ_SECONDS=2 $(MAKE) fuzz

# The mission: a routed 3-node cluster (bgp-route, cluster-ipam, BIRD) and a
# multi-NIC GPU pod (multinet, sriov-rdma on a fake SR-IOV tree, podwire-inspect).
demo: build
	bash scripts/demo.sh $(BUILD)

# Two pods on one bridge (bridge + host-local through cnitool).
demo-bridge: build
	bash scripts/demo-bridge.sh $(BUILD)

bench: build
	bash bench/run.sh $(BUILD) --full

fuzz: bootstrap
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DPODWIRE_BUILD_FUZZ=ON
	cmake --build build-fuzz -j$(JOBS)
	bash fuzz/run.sh build-fuzz $${FUZZ_SECONDS:-60}

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(RELEASE_BUILD) build-fuzz
