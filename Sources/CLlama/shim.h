#ifndef FM_CLLAMA_SHIM_H
#define FM_CLLAMA_SHIM_H
// The single entry point to llama.cpp's C API; only the FMLlama module imports it.
#if __has_include(<llama.h>)
#include <llama.h>
#else
// No distribution packages this llama.cpp version, so SwiftPM cannot suggest one; say what to run.
#error "llama.cpp is not installed: run `make install` as root in a clone of foundation-models-linux (its README, 'Use it from your package', covers other prefixes), then build again."
#endif
#endif
