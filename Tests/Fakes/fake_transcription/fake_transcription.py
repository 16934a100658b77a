#!/usr/bin/env python3
"""A fake OpenAI-compatible transcription service, following Tests/Fakes/specs/transcription-api.md.

  python3 fake_transcription.py --port 0 --control-port-file PATH --key KEY [--transcript PATH]

POST /v1/audio/transcriptions takes the multipart form of §1 and answers as §2 and §3 say. The control
API: GET /_control/requests (each request's fields, the file's name, type and size, whether the key was
right), POST /_control/answer {"text": "..."} (what the next requests are told they said), POST
/_control/fail {"status": 429, "count": 1} (the next `count` requests are answered with that status, as
§3 says a rate-limited or troubled service answers).
"""
import argparse
import email.parser
import email.policy
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FORMATS = {"flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"}   # §1, file
RESPONSE_FORMATS = {"json", "text", "srt", "verbose_json", "vtt"}                # §1, response_format
MAX_FILE = 25 * 1024 * 1024                                                        # §1, file: 25 MB

state = {"requests": [], "text": "fix the login bug", "lock": threading.Lock(), "fail": []}

TROUBLE = {429: ("Rate limit reached for requests", "requests", "rate_limit_exceeded"),   # §3, 429
           500: ("The server had an error while processing your request.", "server_error", None),   # §3, 500
           503: ("The engine is currently overloaded, please try again later", "server_error", None)}   # §3, 503


def error(status, message, kind="invalid_request_error", code=None, param=None):
    """§3: {"error": {message, type, param, code}}."""
    return status, {"error": {"message": message, "type": kind, "param": param, "code": code}}


def parse_multipart(content_type, body):
    """The form's parts: name -> {"value" or "data", "filename", "type"}."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    if not message.is_multipart():
        return None
    parts = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        parts[name] = {"data": data, "filename": filename, "type": part.get_content_type() if part.get("content-type") else None}
    return parts


class Handler(BaseHTTPRequestHandler):
    key = ""

    def log_message(self, *args):
        pass

    def reply(self, status, payload, content_type="application/json"):
        body = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_control/requests":
            with state["lock"]:
                return self.reply(200, {"requests": state["requests"]})
        self.reply(404, {"error": {"message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/_control/answer":
            state["text"] = json.loads(body or b"{}").get("text", "")
            return self.reply(200, {"ok": True})
        if self.path == "/_control/fail":
            asked = json.loads(body or b"{}")
            if asked.get("status") not in TROUBLE:
                return self.reply(400, {"error": {"message": "status must be one of %s" % sorted(TROUBLE)}})
            with state["lock"]:
                state["fail"] += [asked["status"]] * int(asked.get("count", 1))
            return self.reply(200, {"ok": True})
        if self.path != "/v1/audio/transcriptions":
            return self.reply(404, {"error": {"message": "Invalid URL (POST %s)" % self.path, "type": "invalid_request_error"}})
        status, answer = self.transcribe(body)
        if isinstance(answer, str):
            return self.reply(status, answer, "text/plain")
        self.reply(status, answer)

    def transcribe(self, body):
        auth = self.headers.get("Authorization") or ""
        record = {"authorized": auth == "Bearer " + self.key, "contentType": self.headers.get("Content-Type")}
        with state["lock"]:
            state["requests"].append(record)
            failing = state["fail"].pop(0) if state["fail"] else None
        if failing is not None:   # §3: 429, 500, 503, whatever the request
            message, kind, code = TROUBLE[failing]
            return error(failing, message, kind=kind, code=code)
        if not record["authorized"]:   # §3, 401
            return error(401, "Incorrect API key provided.", code="invalid_api_key")
        ctype = self.headers.get("Content-Type") or ""
        if not ctype.startswith("multipart/form-data"):   # §1, Content-Type
            return error(400, "Content-Type must be multipart/form-data")
        parts = parse_multipart(ctype, body)
        if parts is None:
            return error(400, "could not parse the multipart form")
        record["fields"] = {name: p["data"].decode("utf-8", "replace") for name, p in parts.items() if name != "file"}
        upload = parts.get("file")
        if upload is None or not upload["filename"]:   # §1, file: a file part with a filename
            return error(400, "you must provide a file", param="file")
        record["file"] = {"filename": upload["filename"], "type": upload["type"], "size": len(upload["data"]),
                          "head": upload["data"][:4].decode("latin-1")}
        if "model" not in parts:   # §1, model: required
            return error(400, "you must provide a model parameter", param="model")
        extension = upload["filename"].rsplit(".", 1)[-1].lower() if "." in upload["filename"] else ""
        if extension not in FORMATS:   # §1, file: the format from the extension
            return error(400, "Invalid file format. Supported formats: %s" % sorted(FORMATS), param="file")
        if len(upload["data"]) > MAX_FILE:   # §3, 413
            return error(413, "Maximum content size limit exceeded")
        fmt = record["fields"].get("response_format", "json")
        if fmt not in RESPONSE_FORMATS:
            return error(400, "response_format must be one of %s" % sorted(RESPONSE_FORMATS), param="response_format")
        language = record["fields"].get("language")
        if language is not None and not (len(language) == 2 and language.isalpha()):   # §1, language: ISO-639-1
            return error(400, "language must be an ISO-639-1 code", param="language")
        if fmt == "text":   # §2
            return 200, state["text"]
        return 200, {"text": state["text"]}   # §2, json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--control-port-file", required=True)
    parser.add_argument("--transcript")
    parser.add_argument("--key", default="sk-fake-transcription-key")
    args = parser.parse_args()
    Handler.key = args.key
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    with open(args.control_port_file + ".tmp", "w") as f:
        json.dump({"port": port, "base": "http://127.0.0.1:%d/v1" % port}, f)
    os.replace(args.control_port_file + ".tmp", args.control_port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
