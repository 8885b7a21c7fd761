#ifndef FM_CLLAMA_SHIM_H
#define FM_CLLAMA_SHIM_H
// The single entry point to llama.cpp's C API; only the FMLlama module imports it.
#if __has_include(<llama.h>)
#include <llama.h>
// ggml's CPU kernels, for the output product computed for allowed tokens only (FMLlama's OutputProjection).
#include <ggml-cpu.h>
#include <stddef.h>
#include <stdint.h>

/// Logits of the chosen rows of an output weight, tokens[start..<end], each against every operand whose mask
/// allows it: `targets[r][t] = vec_dot(row t, operands[r])` where bit t of mask r (word t / 64 of
/// masks[r * word_count ...]) is set. Rows a few tokens ahead are prefetched: the chosen rows are scattered over
/// the matrix, and without it every row waits on memory (about 3.4x slower on Qwen2.5's Q6_K output weight).
/// In C because Swift has no prefetch.
static inline void fm_project_rows(ggml_vec_dot_t vec_dot, int length, const char *base, size_t stride,
                                   const int32_t *tokens, int64_t start, int64_t end, const uint64_t *masks,
                                   int64_t word_count, int64_t outputs, const void *const *operands,
                                   float *const *targets) {
    const int64_t ahead = 4;
    for (int64_t k = start; k < end; k++) {
        if (k + ahead < end) {
            const char *next = base + (size_t)tokens[k + ahead] * stride;
            for (size_t offset = 0; offset < stride; offset += 64) __builtin_prefetch(next + offset);
        }
        const int32_t token = tokens[k];
        const char *row = base + (size_t)token * stride;
        const uint64_t bit = (uint64_t)1 << (token & 63);
        const int64_t word = token >> 6;
        for (int64_t r = 0; r < outputs; r++) {
            if (masks[r * word_count + word] & bit) {
                float value;
                vec_dot(length, &value, 0, row, 0, operands[r], 0, 1);
                targets[r][token] = value;
            }
        }
    }
}
#else
// No distribution packages this llama.cpp version, so SwiftPM cannot suggest one; say what to run.
#error "llama.cpp is not installed: run `make install` as root in a clone of foundation-models-linux (its README, 'Use it from your package', covers other prefixes), then build again."
#endif
#endif
