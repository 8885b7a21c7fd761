"""The official `openai` Python package against `fm serve`: chat, stream, stop, n, logprobs, json_schema, tools, the
client's parse and stream helpers, and errors.

Usage: python3 openai_client.py BASE_URL API_KEY. Exits non-zero with the failed check on any mismatch.
"""
import json
import sys
import typing

import openai
import pydantic

base_url, api_key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base_url + "/v1", api_key=api_key, max_retries=0)
model = client.models.list().data[0].id
messages = [{"role": "user", "content": "Name three fruits."}]

# Chat, then the same request streamed: greedy decoding gives the same text.
reply = client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24)
text = reply.choices[0].message.content
assert text, reply
assert reply.usage.completion_tokens > 0, reply.usage
pieces = []
usage = None
for chunk in client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24,
                                            stream=True, stream_options={"include_usage": True}):
    if chunk.usage is not None:
        usage = chunk.usage
    for choice in chunk.choices:
        pieces.append(choice.delta.content or "")
assert "".join(pieces) == text, ("".join(pieces), text)
assert usage is not None and usage.completion_tokens == reply.usage.completion_tokens, usage

# A stop string from the middle of that answer: the same greedy text, ended where the string first appears and
# without it, streamed or not; fewer tokens are generated.
middle = len(text) // 2
stop = text[middle:middle + 3]
expected = text[:text.find(stop)]
stopped = client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24, stop=[stop])
assert stopped.choices[0].message.content == expected, (stopped.choices[0].message.content, expected, stop)
assert stopped.choices[0].finish_reason == "stop", stopped
assert stopped.usage.completion_tokens < reply.usage.completion_tokens, (stopped.usage, reply.usage)
pieces = []
for chunk in client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24,
                                            stop=stop, stream=True):
    for choice in chunk.choices:
        pieces.append(choice.delta.content or "")
assert "".join(pieces) == expected, ("".join(pieces), expected, stop)

# Log-probabilities: one entry per token, spelling the greedy answer, each token its step's likeliest; streamed too.
scored = client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24,
                                        logprobs=True, top_logprobs=2)
entries = scored.choices[0].logprobs.content
assert len(entries) == scored.usage.completion_tokens, (len(entries), scored.usage)
assert bytes(b for entry in entries for b in entry.bytes).decode() == scored.choices[0].message.content, entries
for entry in entries:
    assert entry.logprob <= 0 and len(entry.top_logprobs) == 2, entry
    assert entry.top_logprobs[0].token == entry.token and entry.top_logprobs[0].logprob == entry.logprob, entry
streamed_entries = []
for chunk in client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=24,
                                            logprobs=True, stream=True):
    for choice in chunk.choices:
        if choice.logprobs is not None:
            streamed_entries += choice.logprobs.content
assert [e.token for e in streamed_entries] == [e.token for e in entries], streamed_entries

# A JSON schema: the content always parses and follows it.
schema = {"type": "object", "additionalProperties": False, "required": ["fruit", "count"],
          "properties": {"fruit": {"type": "string", "enum": ["apple", "pear", "plum"]},
                         "count": {"type": "integer", "minimum": 1, "maximum": 9}}}
structured = client.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "I ate two pears."}], temperature=0,
    response_format={"type": "json_schema", "json_schema": {"name": "Fruit", "strict": True, "schema": schema}})
value = json.loads(structured.choices[0].message.content)
assert set(value) == {"fruit", "count"} and value["fruit"] in ("apple", "pear", "plum") and 1 <= value["count"] <= 9, value

# json_object: any JSON object, parsed by the client.
anything = client.chat.completions.create(
    model=model, messages=[{"role": "system", "content": "Answer in JSON."},
                           {"role": "user", "content": "Give me a JSON profile of Ada."}],
    temperature=0, max_tokens=300, response_format={"type": "json_object"})
assert isinstance(json.loads(anything.choices[0].message.content), dict), anything

# Tools: a call with arguments of the tool's schema, then an answer to its output.
tools = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
ask = [{"role": "user", "content": "What is the weather in Paris?"}]
calling = client.chat.completions.create(model=model, messages=ask, tools=tools, tool_choice="required", temperature=0)
choice = calling.choices[0]
assert choice.finish_reason == "tool_calls", choice
call = choice.message.tool_calls[0]
assert call.function.name == "get_weather", call
assert isinstance(json.loads(call.function.arguments)["city"], str), call
# Every call gets its answer, as the API requires of a conversation.
followup = ask + [choice.message.model_dump(exclude_none=True)] + [
    {"role": "tool", "tool_call_id": each.id, "content": "31 degrees and sunny."} for each in choice.message.tool_calls]
answer = client.chat.completions.create(model=model, messages=followup, tools=tools, tool_choice="none",
                                        temperature=0, max_tokens=40)
assert answer.choices[0].message.content, answer

# The client's own helpers: a parsed answer and a streamed strict tool call go back into the conversation as the
# client returns them, with its `parsed` and `parsed_arguments` members.
class Fruit(pydantic.BaseModel):
    fruit: typing.Literal["apple", "pear", "plum"]
    count: int

parsed = client.chat.completions.parse(model=model, messages=[{"role": "user", "content": "I ate two pears."}],
                                       response_format=Fruit, temperature=0, max_tokens=40)
assert isinstance(parsed.choices[0].message.parsed, Fruit), parsed
again = client.chat.completions.parse(
    model=model, messages=[{"role": "user", "content": "I ate two pears."}, parsed.choices[0].message,
                           {"role": "user", "content": "And now three plums."}],
    response_format=Fruit, temperature=0, max_tokens=40)
assert isinstance(again.choices[0].message.parsed, Fruit), again

class GetWeather(pydantic.BaseModel):
    city: str

with client.chat.completions.stream(model=model, messages=ask, tools=[openai.pydantic_function_tool(GetWeather)],
                                    tool_choice="required", temperature=0, max_tokens=64) as stream:
    final = stream.get_final_completion()
streamed_call = final.choices[0].message
# A streamed answer of calls has no words, as a whole one: `content` is null, not "".
assert streamed_call.content is None and streamed_call.tool_calls, streamed_call
assert isinstance(streamed_call.tool_calls[0].function.parsed_arguments, GetWeather), streamed_call
answered = client.chat.completions.create(
    model=model, messages=ask + [streamed_call] + [
        {"role": "tool", "tool_call_id": each.id, "content": "31 degrees and sunny."} for each in streamed_call.tool_calls],
    temperature=0, max_tokens=24)
assert answered.choices[0].message.content, answered

# Errors arrive as the client's typed exceptions, with the server's message.
try:
    client.chat.completions.create(model="no-such-model", messages=messages)
    raise AssertionError("an unknown model was accepted")
except openai.NotFoundError as error:
    assert "no-such-model" in str(error), error
several = client.chat.completions.create(model=model, messages=messages, n=2, temperature=1, seed=3, max_tokens=16)
assert [choice.index for choice in several.choices] == [0, 1], several
assert all(choice.message.content for choice in several.choices), several
try:
    client.chat.completions.create(model=model, messages=messages, n=9)
    raise AssertionError("n=9 was accepted")
except openai.BadRequestError as error:
    assert error.body["param"] == "n", error.body

try:
    client.chat.completions.create(model=model, messages=messages, stop=["}"], response_format={"type": "json_object"})
    raise AssertionError("stop with a JSON answer was accepted")
except openai.BadRequestError as error:
    assert error.body["param"] == "stop", error.body

try:
    client.chat.completions.create(model=model, messages=messages, logprobs=True, response_format={"type": "json_object"})
    raise AssertionError("logprobs with a JSON answer were accepted")
except openai.BadRequestError as error:
    assert error.body["param"] == "logprobs", error.body

print(json.dumps({"text": text, "structured": value, "call": call.function.arguments}))
