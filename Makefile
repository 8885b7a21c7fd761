# Foundation Models for Linux — build, test and benchmark entry points.
# Every target installs what it needs (llama.cpp, the default model) into the cache
# directory first, so a fresh machine needs nothing but this Makefile.

CACHE_ROOT   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/foundation-models
LLAMA_PREFIX := $(shell scripts/install-llama.sh --print-prefix)
MODEL        := $(CACHE_ROOT)/models/SmolLM2-135M-Instruct.Q4_1.gguf
GEMMA_MODEL  := $(CACHE_ROOT)/models/gemma-3-270m-q4_k_m.gguf

export PKG_CONFIG_PATH := $(LLAMA_PREFIX)/lib/pkgconfig:$(PKG_CONFIG_PATH)
# The binaries find libllama through an rpath (old-style DT_RPATH, which also covers the libraries
# libllama itself loads), so nobody has to set LD_LIBRARY_PATH.
RPATH        := -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker $(LLAMA_PREFIX)/lib
SWIFT_BUILD_FLAGS ?=
SWIFT        := swift
JOBS         := $(shell nproc)

.PHONY: all setup llama model gemma adapter browser build release run chat test bench clean-cache help

all: build

help:
	@echo "make run     tag the seed's example text with the default model (installs what is missing)"
	@echo "make test    install what is missing, then run every test"
	@echo "make chat    an interactive session with a demo weather tool"
	@echo "make bench   release-build benchmarks (numbers as ratios against a baseline in the same run)"

setup: llama model

llama: $(LLAMA_PREFIX)/.complete
$(LLAMA_PREFIX)/.complete:
	scripts/install-llama.sh

model: $(MODEL)
$(MODEL):
	scripts/install-model.sh smollm2 >/dev/null

gemma: $(GEMMA_MODEL)
$(GEMMA_MODEL):
	scripts/install-model.sh gemma3 >/dev/null

# A tiny LoRA adapter for the default model, generated for the adapter tests (PyPI `gguf`, numpy).
adapter: model
	scripts/make-test-adapter.sh >/dev/null

# Headless Chromium (and a font it renders text with) for the tests that check the HTML reports in a browser.
browser:
	@command -v chromium >/dev/null 2>&1 && dpkg -s fonts-dejavu-core >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }

build: llama
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)

release: llama
	$(SWIFT) build -c release $(RPATH) $(SWIFT_BUILD_FLAGS)

run: setup release
	.build/release/fm tag --greedy "Today we had a lovely picnic with friends at the beach."

# An interactive session with a demo weather tool (issue: tools in `fm chat`).
chat: setup release
	.build/release/fm chat --greedy

test: setup gemma adapter browser
	# Build every product first: the CLI tests run the real `fm` binary.
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)
	FM_GEMMA_MODEL_PATH=$(GEMMA_MODEL) $(SWIFT) test --no-parallel $(RPATH) $(SWIFT_BUILD_FLAGS)

bench: setup gemma
	scripts/bench.sh

clean-cache:
	rm -rf $(CACHE_ROOT)
