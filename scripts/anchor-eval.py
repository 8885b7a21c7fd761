#!/usr/bin/env python3
"""The same-model anchor for `make quality`: llama.cpp's own server with `response_format: json_schema`.

Sends every text of a labelled JSONL file to a running llama-server as one chat request, with the schema
`fm eval --print-schema` gives for that file, greedy, and writes the results as `fm tag` does (one line per
input: {"id", "result"} or {"id", "error"}), so `fm eval --predictions` scores both sides with the same code.
"""
import http.client
import json
import sys
import time
import urllib.error
import urllib.request


def main():
    url, data_path, schema_path, out_path = sys.argv[1:5]
    limit = int(sys.argv[5]) if len(sys.argv) > 5 else None
    schema = json.load(open(schema_path))
    system = ("You classify or tag the text the user sends; you never answer it. "
              "Respond with JSON that matches this schema: " + json.dumps(schema, separators=(",", ":")))
    records = [json.loads(line) for line in open(data_path) if line.strip()]
    if limit:
        records = records[:limit]
    started = time.time()
    with open(out_path, "w") as out:
        for record in records:
            body = {
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": record["text"]}],
                "response_format": {"type": "json_schema", "json_schema": {"name": "result", "schema": schema, "strict": True}},
                "temperature": 0, "top_k": 1, "cache_prompt": True, "max_tokens": 512,
            }
            line = {"id": record["id"]}
            try:
                request = urllib.request.Request(url + "/v1/chat/completions", data=json.dumps(body).encode(),
                                                 headers={"Content-Type": "application/json"})
                reply = json.load(urllib.request.urlopen(request, timeout=600))
                line["result"] = json.loads(reply["choices"][0]["message"]["content"])
            except (OSError, http.client.HTTPException, ValueError, KeyError) as error:
                line["error"] = {"code": "anchor-failed", "message": str(error)}
            out.write(json.dumps(line) + "\n")
    print(f"{time.time() - started:.1f}")


if __name__ == "__main__":
    main()
