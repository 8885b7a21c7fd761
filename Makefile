# Foundation Models for Linux — build, test and benchmark entry points.
# Every target installs what it needs (llama.cpp, the default model) into the cache
# directory first, so a fresh machine needs nothing but this Makefile.

CACHE_ROOT   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/foundation-models
LLAMA_PREFIX := $(shell scripts/install-llama.sh --print-prefix)
MODEL        := $(CACHE_ROOT)/models/SmolLM2-135M-Instruct.Q4_1.gguf
GEMMA_MODEL  := $(CACHE_ROOT)/models/gemma-3-270m-q4_k_m.gguf
# Where `make install` puts llama.cpp for packages that depend on this one.
PREFIX       ?= /usr/local

export PKG_CONFIG_PATH := $(LLAMA_PREFIX)/lib/pkgconfig:$(PKG_CONFIG_PATH)
# The binaries find libllama through an rpath (old-style DT_RPATH, which also covers the libraries
# libllama itself loads), so nobody has to set LD_LIBRARY_PATH.
RPATH        := -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker $(LLAMA_PREFIX)/lib
SWIFT_BUILD_FLAGS ?=
SWIFT        := swift
JOBS         := $(shell nproc)

.PHONY: all setup llama model gemma adapter install uninstall build release run chat test docs bench clean-cache help

all: build

help:
	@echo "make run     tag the seed's example text with the default model (installs what is missing)"
	@echo "make test    install what is missing, then run every test"
	@echo "make chat    an interactive session with a demo weather tool"
	@echo "make bench   release-build benchmarks (numbers as ratios against a baseline in the same run)"
	@echo "make install install llama.cpp into PREFIX (/usr/local) for packages that depend on this one"
	@echo "make docs    build the DocC documentation (fails on warnings)"

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

# llama.cpp (libraries, headers, llama.pc) in a standard prefix, and the default model, so that a package
# depending on this one builds and runs with plain `swift build` / `swift run`. Copies the cache's
# build; idempotent.
# Under sudo the model belongs in the invoking user's cache (`make setup`), not root's.
install: $(if $(SUDO_USER),,model)
	scripts/install-library.sh "$(PREFIX)"

uninstall:
	scripts/install-library.sh --uninstall "$(PREFIX)"

# A tiny LoRA adapter for the default model, generated for the adapter tests (PyPI `gguf`, numpy).
adapter: model
	scripts/make-test-adapter.sh >/dev/null

build: llama
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)

release: llama
	$(SWIFT) build -c release $(RPATH) $(SWIFT_BUILD_FLAGS)

run: setup release
	.build/release/fm tag --greedy "Today we had a lovely picnic with friends at the beach."

# An interactive session with a demo weather tool (issue: tools in `fm chat`).
chat: setup release
	.build/release/fm chat --greedy

# `install` first: the Quick start test builds a package that depends on this one with plain `swift build`.
test: setup gemma adapter install
	# Build every product first: the CLI tests run the real `fm` binary.
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)
	FM_GEMMA_MODEL_PATH=$(GEMMA_MODEL) $(SWIFT) test --no-parallel $(RPATH) $(SWIFT_BUILD_FLAGS)
	$(MAKE) docs

# The DocC catalog of the public API, with the contributor-only DocC plugin (FM_ENABLE_DOCS in Package.swift).
# Warnings, such as a symbol link that does not resolve, fail the build.
docs: llama
	FM_ENABLE_DOCS=1 $(SWIFT) package generate-documentation --target FoundationModels --warnings-as-errors

bench: setup gemma
	scripts/bench.sh

clean-cache:
	rm -rf $(CACHE_ROOT)
