#!/usr/bin/env python3
"""Writes a tiny LoRA adapter in GGUF form for the default model (SmolLM2-135M-Instruct).

The adapter is random (seeded) low-rank updates of every layer's ffn_down projection: it has no skill, it
only changes the model's logits measurably, which is what the adapter tests check. Creator-defined
metadata goes under `creator.*` keys, which SystemLanguageModel.Adapter.creatorDefinedMetadata reads.

usage: make-test-adapter.py BASE_MODEL.gguf OUTPUT.gguf
"""
import sys

import gguf
import numpy as np


def main() -> None:
    base_path, output_path = sys.argv[1], sys.argv[2]
    base = gguf.GGUFReader(base_path)
    architecture = bytes(base.fields["general.architecture"].parts[-1]).decode()
    downs = [t for t in base.tensors if t.name.endswith(".ffn_down.weight")]

    writer = gguf.GGUFWriter(output_path, architecture)
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 8.0)
    writer.add_string("general.name", "fm-test-adapter")
    writer.add_string("creator.description", "Random LoRA for the foundation-models test suite")
    writer.add_string("creator.version", "1")

    rank = 8
    rng = np.random.default_rng(42)
    for tensor in downs:
        n_in, n_out = int(tensor.shape[0]), int(tensor.shape[1])
        a = (rng.standard_normal((rank, n_in)) * 0.05).astype(np.float32)
        b = (rng.standard_normal((n_out, rank)) * 0.05).astype(np.float32)
        writer.add_tensor(tensor.name + ".lora_a", a)
        writer.add_tensor(tensor.name + ".lora_b", b)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
