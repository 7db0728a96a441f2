# Entry points. Every target installs missing Debian packages first (scripts/install-deps.sh).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
CMAKE_ARGS ?=

.PHONY: deps configure build test run clean

deps:
	@./scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ]; then \
	  cmake -S . -B $(BUILD_DIR) -G "$(GENERATOR)" $(CMAKE_ARGS); \
	fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The main job: compile the MLP example (examples/mlp) with the default pipeline for the LLVM
# backend (both are compile's defaults), then run it on a batch of 3, printing the output and
# the latency.
run: build
	./$(BUILD_DIR)/bin/relax-driver compile examples/mlp/mlp.rx --time-passes -o $(BUILD_DIR)/mlp.rxe
	./$(BUILD_DIR)/bin/relax-driver run $(BUILD_DIR)/mlp.rxe --input x=examples/mlp/input_b3.npy \
	  --repeat 100

clean:
	rm -rf $(BUILD_DIR)
