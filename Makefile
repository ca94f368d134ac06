# Convenience wrapper around CMake. `make test` is the README's test command
# and what CI runs: bootstrap, configure, build, run every test (unit, netns,
# e2e, fuzz corpus replay, bench smoke) and end with ctest's summary; then the
# unit and netns tiers again under ASan+UBSan; then a Release build (what a
# packager runs first: -O2 with _FORTIFY_SOURCE, warnings are errors) and its
# unit tier.

BUILD ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all bootstrap configure build test test-fast test-asan test-release demo bench fuzz format clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

configure: bootstrap
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Every tier in one ctest run; the summary line is ctest's.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j1
	$(MAKE) test-asan
	$(MAKE) test-release

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

demo: build
	bash scripts/demo.sh $(BUILD)

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
