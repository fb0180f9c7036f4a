#!/usr/bin/env python3
"""A fake LLM API for tests: OpenAI Chat Completions and Anthropic Messages on 127.0.0.1.

Standard library only. Prints `PORT <n>` as its first stdout line, then serves until killed.

Endpoints: POST any path ending in /chat/completions (OpenAI) or /messages (Anthropic);
GET /health answers "ok". Anything else is a 404.

What a request gets is scripted by a directive in its LAST user message:

    [[fake: STEP then STEP then ...]]

Requests with the same conversation (provider, model, messages, system) count as attempts of
one conversation: attempt n gets the step it falls on, and the last step repeats forever.
STEP is an action with options:

    ok                  the answer (from --answers, else the canned one)
    stall S             sleep S seconds (fractions allowed), then the answer
    truncated           half the answer, finish_reason "length" / stop_reason "max_tokens"
    malformed           200 with an HTML body (not JSON)
    wrongshape          200 with JSON that is not the API's answer
    drop                close the connection without a response
    NNN                 that HTTP status with the API's error JSON; a 401 quotes the key it got
    xN                  (option) this step for N attempts (default 1)
    retry-after=V       (option) send `Retry-After: V` (seconds, or any text)
    retry-after-date=S  (option) send Retry-After as an HTTP-date S seconds from now
    retry-after-ms=N    (option) send OpenAI's `retry-after-ms: N`

e.g. `[[fake: 429 retry-after=1 then ok]]`, `[[fake: 500 x2 then ok]]`, `[[fake: stall 5]]`,
`[[fake: malformed x2 then ok]]`, `[[fake: 401]]`. Without a directive (and without
--default) a request gets `ok`.

The canned answer (deterministic, per model and message count, system prompt included):

    Fake answer from MODEL.

    ```cuda
    // file: solution.cu
    // fake-llm model=MODEL messages=N
    ```

Usage counts whitespace-separated words: input over every message (system included), output
over the answer. The reported model is the requested one.

Options:
    --answers FILE.json   {"substring of the user messages": "full answer text", ...} (or a
                          list of [substring, answer] pairs); the first match wins, else canned
    --log FILE            one JSON line per request: path, provider, headers (key values
                          replaced by "<redacted>"), auth_present, auth_ok (null without
                          --expect-key), body (parsed JSON, or the raw text), attempt, step
    --expect-key KEY      401 unless the request carries `Authorization: Bearer KEY` (OpenAI)
                          or `x-api-key: KEY` (Anthropic)
    --default DIRECTIVE   the steps for requests without a directive, e.g. "500 then ok"
    --port N              default 0 (any free port)
"""

import argparse
import email.utils
import hashlib
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRECTIVE = re.compile(r"\[\[fake:\s*(.*?)\]\]", re.S)
KEY_HEADERS = ("authorization", "x-api-key")


class Step:
    def __init__(self, text):
        words = text.split()
        if not words:
            raise ValueError("empty step")
        self.action = words[0]
        self.count = 1
        self.stall = 0.0
        self.headers = {}
        rest = words[1:]
        if self.action == "stall":
            self.stall = float(rest.pop(0))
        for word in rest:
            if re.fullmatch(r"x\d+", word):
                self.count = int(word[1:])
            elif word.startswith("retry-after="):
                self.headers["Retry-After"] = word.split("=", 1)[1]
            elif word.startswith("retry-after-date="):
                when = time.time() + float(word.split("=", 1)[1])
                self.headers["Retry-After"] = email.utils.formatdate(when, usegmt=True)
            elif word.startswith("retry-after-ms="):
                self.headers["retry-after-ms"] = word.split("=", 1)[1]
            else:
                raise ValueError(f"unknown option {word!r}")
        known = ("ok", "stall", "truncated", "malformed", "wrongshape", "drop")
        if self.action not in known and not re.fullmatch(r"\d{3}", self.action):
            raise ValueError(f"unknown action {self.action!r}")


def parse_steps(text):
    return [Step(part) for part in re.split(r"\bthen\b", text)]


def step_for(steps, attempt):
    """The step that attempt (0-based) falls on; the last one repeats."""
    for step in steps:
        if attempt < step.count:
            return step
        attempt -= step.count
    return steps[-1]


def text_of(content):
    """A message's text: a string, or Anthropic's list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.attempts = {}
        self.answers = []
        if args.answers:
            with open(args.answers, encoding="utf-8") as f:
                loaded = json.load(f)
            self.answers = list(loaded.items()) if isinstance(loaded, dict) else loaded
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None

    def next_attempt(self, key):
        with self.lock:
            n = self.attempts.get(key, 0)
            self.attempts[key] = n + 1
            return n

    def record(self, entry):
        if self.log:
            with self.lock:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()


class Handler(BaseHTTPRequestHandler):
    server_version = "FakeLLM/1.0"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        if self.path.rstrip("/").endswith("/health"):
            self.send_body(200, "text/plain", b"ok")
        else:
            self.send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self):
        try:
            self.handle_post()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a stall test); nothing to answer

    def handle_post(self):
        state = self.server.state
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/chat/completions"):
            provider = "openai"
        elif path.endswith("/messages"):
            provider = "anthropic"
        else:
            self.send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None

        got_key = self.sent_key(provider)
        expect = state.args.expect_key
        entry = {
            "path": self.path,
            "provider": provider,
            "headers": {k: ("<redacted>" if k.lower() in KEY_HEADERS else v)
                        for k, v in self.headers.items()},
            "auth_present": got_key is not None,
            "auth_ok": None if expect is None else got_key == expect,
            "body": body if body is not None else raw,
        }
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            entry["step"] = "400"
            state.record(entry)
            self.send_error_json(provider, 400, "the body is not a JSON request with messages")
            return

        messages = body["messages"]
        model = body.get("model", "")
        system = text_of(body.get("system", ""))
        key = hashlib.sha256(json.dumps([provider, model, system, messages],
                                        sort_keys=True).encode()).hexdigest()
        attempt = state.next_attempt(key)
        users = [text_of(m.get("content")) for m in messages
                 if isinstance(m, dict) and m.get("role") == "user"]
        match = DIRECTIVE.search(users[-1]) if users else None
        script = match.group(1) if match else state.args.default
        try:
            step = step_for(parse_steps(script), attempt)
        except ValueError as e:
            entry["step"] = "400"
            state.record(entry)
            self.send_error_json(provider, 400, f"bad fake directive: {e}")
            return
        entry["attempt"] = attempt + 1
        entry["step"] = step.action
        state.record(entry)

        if expect is not None and got_key != expect:
            self.send_error_json(provider, 401, f"Incorrect API key provided: {got_key}")
            return
        if provider == "anthropic" and "anthropic-version" not in self.headers:
            self.send_error_json(provider, 400, "anthropic-version header is required")
            return

        if step.stall:
            time.sleep(step.stall)
        if step.action == "drop":
            self.close_connection = True
            return
        if re.fullmatch(r"\d{3}", step.action):
            status = int(step.action)
            message = f"fake error {status}"
            if status == 401:
                message = f"Incorrect API key provided: {got_key}"
            self.send_error_json(provider, status, message, step.headers)
            return
        if step.action == "malformed":
            self.send_body(200, "text/html", b"<html><body>502 Bad Gateway</body></html>",
                           step.headers)
            return
        if step.action == "wrongshape":
            self.send_json(200, {"unexpected": "shape"}, step.headers)
            return

        count = len(messages) + (1 if system else 0)
        text = self.answer(users, model, count)
        truncated = step.action == "truncated"
        if truncated:
            text = text[: len(text) // 2]
        words_in = len(system.split()) + sum(len(text_of(m.get("content")).split())
                                             for m in messages if isinstance(m, dict))
        words_out = len(text.split())
        if provider == "openai":
            reply = {
                "id": f"chatcmpl-fake-{key[:12]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "length" if truncated else "stop",
                }],
                "usage": {"prompt_tokens": words_in, "completion_tokens": words_out,
                          "total_tokens": words_in + words_out},
            }
        else:
            # Split around a thinking block, so clients must join text blocks and skip others.
            half = len(text) // 2
            reply = {
                "id": f"msg_fake_{key[:12]}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [
                    {"type": "thinking", "thinking": "(fake thoughts)", "signature": "x"},
                    {"type": "text", "text": text[:half]},
                    {"type": "text", "text": text[half:]},
                ],
                "stop_reason": "max_tokens" if truncated else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": words_in, "output_tokens": words_out},
            }
        self.send_json(200, reply, step.headers)

    def answer(self, users, model, count):
        prompt = "\n".join(users)
        for substring, text in self.server.state.answers:
            if substring in prompt:
                return text
        return (f"Fake answer from {model}.\n\n```cuda\n// file: solution.cu\n"
                f"// fake-llm model={model} messages={count}\n```\n")

    def sent_key(self, provider):
        if provider == "anthropic":
            return self.headers.get("x-api-key")
        auth = self.headers.get("Authorization")
        if auth is None:
            return None
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else auth

    def send_error_json(self, provider, status, message, headers=None):
        kind = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error",
                429: "rate_limit_error"}.get(status, "api_error")
        if provider == "anthropic":
            body = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            body = {"error": {"message": message, "type": kind, "code": None}}
        self.send_json(status, body, headers)

    def send_json(self, status, obj, headers=None):
        self.send_body(status, "application/json", json.dumps(obj).encode(), headers)

    def send_body(self, status, content_type, data, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops concurrent connects (a 1 s SYN retry)

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--answers")
    parser.add_argument("--log")
    parser.add_argument("--expect-key")
    parser.add_argument("--default", default="ok")
    args = parser.parse_args()
    parse_steps(args.default)  # a bad --default fails here, not on the first request
    server = Server(("127.0.0.1", args.port), Handler)
    server.state = State(args)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
