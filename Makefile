# Foundation Models for Linux — build, test and benchmark entry points.
# Every target installs what it needs (llama.cpp, the default model) into the cache
# directory first, so a fresh machine needs nothing but this Makefile.

# A relative XDG_CACHE_HOME is ignored (XDG spec), as in the scripts and the Swift code.
CACHE_ROOT   := $(if $(filter /%,$(firstword $(XDG_CACHE_HOME))),$(XDG_CACHE_HOME),$(HOME)/.cache)/foundation-models
LLAMA_PREFIX := $(shell scripts/install-llama.sh --print-prefix)
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

.PHONY: all setup llama llama-server install uninstall browser build release run chat test docs bench quality clean-cache help

all: build

help:
	@echo "make run     tag the seed's example text with the default model (installs what is missing)"
	@echo "make test    install what is missing, then run every test"
	@echo "make chat    an interactive session with a demo weather tool"
	@echo "make bench   release-build benchmarks (numbers as ratios against a baseline in the same run)"
	@echo "make quality answer quality on the labelled dev data, ours against the same model under llama-server"
	@echo "make install llama.cpp into PREFIX (/usr/local) and the default model, for packages using this one"
	@echo "make docs    build the DocC documentation (fails on warnings)"

# llama.cpp, the fm tool, and the catalogue's default model (`fm model install` pins and verifies it).
setup: release
	.build/release/fm model install default

# Always asked (it returns at once when the install is done): the script, not make, knows whether an install
# in a shared cache was built for this CPU (AVX-512 or not) and rebuilds one that was not.
llama:
	@scripts/install-llama.sh

# llama.cpp (libraries, headers, llama.pc) in a standard prefix, and the catalogue's default model, so that
# a package depending on this one builds and runs with plain `swift build` / `swift run`. Copies the cache's
# llama.cpp build; idempotent. Under sudo only the library: the model belongs in the invoking user's cache
# (`make setup`), and building `fm` as root would leave root-owned files in the checkout.
install: $(if $(SUDO_USER),,build)
	scripts/install-library.sh "$(PREFIX)"
	$(if $(SUDO_USER),,.build/debug/fm model install --quiet default)

uninstall:
	scripts/install-library.sh --uninstall "$(PREFIX)"

# llama.cpp's own server from the same source: the anchor of `make quality` and `make bench`.
llama-server: llama
	scripts/install-llama-server.sh >/dev/null

# Headless Chromium (and a font it renders text with) for the tests that check the HTML reports in a browser.
browser:
	@command -v chromium >/dev/null 2>&1 && dpkg -s fonts-dejavu-core >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }

build: llama
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)

release: llama
	$(SWIFT) build -c release $(RPATH) $(SWIFT_BUILD_FLAGS)

run: setup
	.build/release/fm tag --greedy "Today we had a lovely picnic with friends at the beach."

# An interactive session with a demo weather tool.
chat: setup
	.build/release/fm chat --greedy

# Tests about mechanics run on the tiny model (FM_MODEL=tiny); tests about answer quality name the
# catalogue's default model themselves. `install` first: the Quick start test builds a package that depends
# on this one with plain `swift build`, and runs it on the default model. `browser`: the HTML report tests
# render the pages in headless Chromium. `llama-server`: the ChatCompletionsLanguageModel tests start llama.cpp's
# own server on a free loopback port.
test: llama llama-server install browser
	# Build every product first: the CLI tests run the real `fm` binary.
	$(SWIFT) build $(RPATH) $(SWIFT_BUILD_FLAGS)
	.build/debug/fm model install --quiet tiny default gemma
	# The tests run on `tiny` (FM_MODEL); an FM_MODEL_PATH from the caller's shell would win over it.
	env -u FM_MODEL_PATH scripts/make-test-adapter.sh >/dev/null
	# The JSON Schema suite tests check generated values with an independent validator (PyPI `jsonschema`).
	python3 -c "import jsonschema" 2>/dev/null || python3 -m pip install --quiet jsonschema
	# The fm serve tests drive the server with the official OpenAI Python client (PyPI `openai`).
	python3 -c "import openai" 2>/dev/null || python3 -m pip install --quiet openai
	env -u FM_MODEL_PATH FM_MODEL=tiny FM_GEMMA_MODEL_PATH="$(GEMMA_MODEL)" $(SWIFT) test --no-parallel $(RPATH) $(SWIFT_BUILD_FLAGS)
	$(MAKE) docs

# The DocC catalog of the public API, with the contributor-only DocC plugin (FM_ENABLE_DOCS in Package.swift).
# Warnings, such as a symbol link that does not resolve, fail the build.
docs: llama
	FM_ENABLE_DOCS=1 $(SWIFT) package generate-documentation --target FoundationModels --warnings-as-errors

bench: setup llama-server
	.build/release/fm model install --quiet tiny gemma
	scripts/bench.sh

quality: setup llama-server
	scripts/quality.sh

# Only ever a directory named foundation-models: CACHE_ROOT can be set on the command line.
clean-cache:
	case "$(CACHE_ROOT)" in */foundation-models) rm -rf -- "$(CACHE_ROOT)" ;; \
		*) echo "refusing to remove '$(CACHE_ROOT)': not a .../foundation-models directory" >&2; exit 1 ;; esac
