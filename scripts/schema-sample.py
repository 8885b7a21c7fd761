#!/usr/bin/env python3
"""Draws the fixed real-world schema sample in benchmarks/schemas/real-world/ from a JSONSchemaBench checkout.

    python3 scripts/schema-sample.py --jsb PATH-TO-jsonschemabench [--out benchmarks/schemas/real-world]

PATH is a clone (work tree) or a bare git directory of github.com/guidance-ai/jsonschemabench; the schemas come from
its maskbench/data/*.json (each file wraps one schema under "schema"). Only subsets whose upstream licence allows
redistribution are drawn (see benchmarks/schemas/real-world/README.md). The selection is deterministic: per subset,
the file names are sorted, schemas of 20 KB or more (as written here) dropped, and `count` names taken at a fixed
stride. Running it again on the same commit rewrites the same files.
"""
import argparse
import json
import os
import subprocess
import sys

# subset prefix in maskbench/data -> (our directory, how many)
SUBSETS = [
    ("Kubernetes---", "kubernetes", 40),
    ("JsonSchemaStore---", "schemastore", 35),
    ("Snowplow---", "snowplow", 30),
    ("Glaiveai2K---", "glaive", 30),
    ("BFCL_", "bfcl", 15),
    ("MCPspec---", "mcp", 10),
    ("Handwritten---", "handwritten", 15),
    ("Synthesized---", "synthesized", 10),
]
MAX_BYTES = 20 * 1024


class Source:
    def __init__(self, path):
        self.path = path
        self.bare = not os.path.isdir(os.path.join(path, "maskbench", "data"))

    def names(self):
        if self.bare:
            out = subprocess.run(["git", "-C", self.path, "ls-tree", "--name-only", "HEAD", "maskbench/data/"],
                                 check=True, capture_output=True, text=True).stdout
            return sorted(os.path.basename(line) for line in out.splitlines() if line.endswith(".json"))
        return sorted(n for n in os.listdir(os.path.join(self.path, "maskbench", "data")) if n.endswith(".json"))

    def read(self, name):
        if self.bare:
            return subprocess.run(["git", "-C", self.path, "show", f"HEAD:maskbench/data/{name}"],
                                  check=True, capture_output=True, text=True).stdout
        with open(os.path.join(self.path, "maskbench", "data", name), encoding="utf-8") as f:
            return f.read()

    def commit(self):
        return subprocess.run(["git", "-C", self.path, "rev-parse", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()


def output_name(prefix, name):
    stem = name[len(prefix):] if name.startswith(prefix) else name
    if prefix == "BFCL_":
        stem = name  # keeps the category: BFCL_simple_4.json
    return stem.replace("---", "_")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jsb", required=True, help="jsonschemabench clone or bare git directory")
    ap.add_argument("--out", default="benchmarks/schemas/real-world")
    args = ap.parse_args()
    src = Source(args.jsb)
    names = src.names()
    manifest = []
    for prefix, directory, count in SUBSETS:
        candidates = []
        for name in (n for n in names if n.startswith(prefix)):
            try:
                raw = src.read(name)
            except subprocess.CalledProcessError:  # a snapshot without its largest blobs (far above 20 KB)
                print(f"skipped (unreadable): {name}", file=sys.stderr)
                continue
            text = json.dumps(json.loads(raw)["schema"], indent=2, ensure_ascii=False) + "\n"
            if len(text.encode("utf-8")) < MAX_BYTES:
                candidates.append((name, text))
        if len(candidates) < count:
            sys.exit(f"{prefix}: only {len(candidates)} schemas under {MAX_BYTES} bytes")
        picked = [candidates[(2 * i + 1) * len(candidates) // (2 * count)] for i in range(count)]
        os.makedirs(os.path.join(args.out, directory), exist_ok=True)
        for name, text in picked:
            target = os.path.join(args.out, directory, output_name(prefix, name))
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            manifest.append({"file": os.path.relpath(target, args.out), "upstream": f"maskbench/data/{name}"})
        print(f"{directory}: {count} of {len(candidates)} (under 20 KB)", file=sys.stderr)
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"repository": "https://github.com/guidance-ai/jsonschemabench", "commit": src.commit(),
                   "schemas": manifest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
