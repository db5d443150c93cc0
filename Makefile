# Thin wrapper over CMake. Every target installs what it needs first (scripts/install-deps.sh
# does nothing when all is present), so `make demo` and `make test` work on a fresh machine.
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=

.PHONY: all deps build demo test unit asan bench fuzz format tidy clean

all: build

deps:
	bash scripts/install-deps.sh

# Link-time optimisation and full debug information: the build users run, and the one the
# benchmarks measure and profile.
build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUDLEY_BENCH=ON \
	  -DDUDLEY_LTO=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# The main job on the bundled examples: only what it runs is built (the tool, its HDF5
# module and the two example programs), not the tests, benchmarks or Python module, so a
# first `make demo` waits minutes, not the whole build (`make build` builds everything).
DEMO_TARGETS = dudley dudley_hdf5_module write_family write_tracks
demo: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS) --target $(DEMO_TARGETS)
	bash scripts/demo.sh $(BUILD)/dudley

# Unit tests, then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test: unit asan

# Everything the tests use, optimised as users get it (-O2), without the benchmarks, without
# link-time optimisation (the objects are then the ones the wheel of python_pypi_stack
# builds, which ccache hands it: 705 -> 140 s of that test) and with line tables only for
# debug information (-g1: backtraces name file and line; full -g took a third of the compile
# time). `make build` and `make bench` build with both (the sources compile again once; with
# ccache, switching back and forth is links only).
unit: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUDLEY_BENCH=OFF \
	  -DDUDLEY_LTO=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

asan: deps
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DDUDLEY_SANITIZE=ON -DDUDLEY_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j$(JOBS)

bench: build
	bash bench/run.sh $(BUILD)

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DDUDLEY_FUZZ=ON -DDUDLEY_TESTS=OFF -DDUDLEY_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

tidy: build
	clang-tidy -p $(BUILD) --quiet $$(git ls-files 'src/*.cpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
