#!/usr/bin/env python3
"""The anchor side of `scripts/throughput.sh`: replays our exact requests on a running llama-server.

Usage: throughput-anchor.py URL REQUESTS.jsonl CLIENTS

Each line of REQUESTS holds the chat messages our executor renders for one text and the schema as JSON Schema
(`fm-bench throughput --requests`). Every request goes to /v1/chat/completions with
`response_format: json_schema` (strict), greedy, `cache_prompt`, from CLIENTS concurrent clients. Prints one
JSON object: texts per second over the wall time, median latency, errors, answers cut at the token limit and
each response's content in input order.

A request that fails (a network error, an HTTP error, a reply that is not a chat completion, or content that
does not parse although the answer ended) stops the replay: it would take no time and flatter the server's speed.
An answer that ran into `max_tokens` (`finish_reason: "length"`, a runaway string under a grammar that lets
it run) took its full time; it is kept, and counted as `cut`.
"""
import concurrent.futures
import http.client
import json
import statistics
import sys
import time
import urllib.error
import urllib.request


def send(url, request):
    body = {
        "messages": request["messages"],
        "response_format": {"type": "json_schema", "json_schema": {"name": "result", "schema": request["schema"], "strict": True}},
        "temperature": 0, "top_k": 1, "cache_prompt": True, "max_tokens": 512,
    }
    started = time.perf_counter()
    try:
        call = urllib.request.Request(url + "/v1/chat/completions", data=json.dumps(body).encode(),
                                      headers={"Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(call, timeout=600))
        choice = reply["choices"][0]
        content = choice["message"]["content"]
        if choice.get("finish_reason") == "length":
            return time.perf_counter() - started, content, True
        json.loads(content)
    except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError, IndexError) as error:
        content = f"error {error}"
    return time.perf_counter() - started, content, False


def main():
    url, path, clients = sys.argv[1], sys.argv[2], int(sys.argv[3])
    requests = [json.loads(line) for line in open(path) if line.strip()]
    # Warm-up, as on our side: the shared prefix in the cache, the grammar built.
    for request in requests[:2]:
        send(url, request)
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        outcomes = list(pool.map(lambda request: send(url, request), requests))
    wall = time.perf_counter() - started
    errors = [content for _, content, cut in outcomes if not cut and content.startswith("error ")]
    if errors:
        # A failed request takes no time, so any would flatter the anchor's speed.
        sys.exit(f"{len(errors)} of {len(requests)} requests to {url} failed, the first: {errors[0]}")
    print(json.dumps({
        "clients": clients,
        "texts": len(requests),
        "texts_per_second": len(requests) / wall,
        "median_latency_seconds": statistics.median(latency for latency, _, _ in outcomes),
        "errors": 0,
        "cut": sum(cut for _, _, cut in outcomes),
        "results": [content for _, content, _ in outcomes],
    }, sort_keys=True))


if __name__ == "__main__":
    main()
