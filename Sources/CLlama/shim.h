#ifndef FM_CLLAMA_SHIM_H
#define FM_CLLAMA_SHIM_H
// The single entry point to llama.cpp's C API; only the FMLlama module imports it.
#include <llama.h>
#endif
