#!/usr/bin/env python3
"""Fake Slack (Web API + Socket Mode) for pi-relayd tests.

Test-tree code, Python 3 standard library only (plus the fake Discord's RFC 6455 server framing,
ws_server.py, which is test-tree code too); it shares no code with the plugin under test.
Behaviour follows /work/shared/specs/slack-api.md (sections 2-12). Deviations are listed in
README.md. Do not change behaviour here to make a plugin test pass; fix the plugin.

Usage:
  python3 fake_slack.py --port 0 --control-port-file PATH [--bot-token T] [--app-token T]
      [--transcript FILE] [--retry-delays 1,3,6] [--ack-deadline 3] [--verbose]

One port serves the Web API (POST /api/<method>), the upload URLs it hands out, the files'
url_private downloads, the Socket Mode WebSocket (GET /link/?ticket=...) and the control API
(/_control/...), through which tests act as users and read back what the bot did.
"""

import argparse
import base64
import json
import os
import random
import re
import secrets
import socket
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fake_discord"))
import ws_server  # noqa: E402  (the fake Discord's WebSocket framing, test-tree code)

TEAM_ID, TEAM_NAME = "T0FAKETEAM", "pi-relay-test"
APP_ID = "A0FAKEAPP"
BOT_USER, BOT_ID, BOT_NAME = "U0BOTUSER", "B0BOTID", "pi-relay"
DEFAULT_BOT_TOKEN = "xoxb-1111-2222-fakeBotTokenSecret"
DEFAULT_APP_TOKEN = "xapp-1-A0FAKEAPP-3333-fakeAppTokenSecret"
MAX_CONNECTIONS = 10

# Rate-limit tiers (spec section 8): calls per minute, per method, per workspace.
TIER = {1: 1, 2: 20, 3: 50, 4: 100}
METHOD_TIER = {
    "apps.connections.open": 1, "chat.update": 3, "chat.delete": 3, "reactions.add": 3, "reactions.remove": 3,
    "conversations.open": 3, "chat.postEphemeral": 4, "users.info": 4, "files.getUploadURLExternal": 4,
    "files.completeUploadExternal": 4,
}
# Tier 1 tolerates "small bursts": a reconnect or two more within the minute.
TIER1_BURST = 5
POST_PER_CHANNEL_BURST = 6      # chat.postMessage: ~1/s per channel, short bursts
READ_METHODS = {"users.info", "conversations.info"}
UNRECOVERABLE = {"not_authed", "invalid_auth", "account_inactive", "token_revoked"}
BUTTON_STYLES = {"primary", "danger"}


class ApiError(Exception):
    def __init__(self, error, status=200, headers=None, extra=None):
        super().__init__(error)
        self.error, self.status, self.headers, self.extra = error, status, headers or {}, extra or {}


class ControlError(Exception):
    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def now():
    return time.time()


class Connection:
    def __init__(self, cid, sock):
        self.id, self.sock = cid, sock
        self.lock = threading.Lock()
        self.open = True
        self.opened_at = now()
        self.hello_at = None
        self.closing_at = None
        self.disconnect_reason = None

    def send_text(self, text):
        with self.lock:
            if not self.open:
                return False
            try:
                self.sock.sendall(ws_server.encode_frame(ws_server.OP_TEXT, text.encode("utf-8")))
                return True
            except OSError:
                self.open = False
                return False

    def send_frame(self, op, payload=b""):
        with self.lock:
            if not self.open:
                return
            try:
                self.sock.sendall(ws_server.encode_frame(op, payload))
            except OSError:
                self.open = False

    def close(self, code=1000, reason=""):
        self.send_frame(ws_server.OP_CLOSE, ws_server.close_payload(code, reason))
        with self.lock:
            self.open = False
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Slack:
    def __init__(self, args):
        self.bot_token = args.bot_token
        self.app_token = args.app_token
        self.retry_delays = [float(x) for x in args.retry_delays.split(",") if x]
        self.ack_deadline = args.ack_deadline
        self.transcript_path = args.transcript
        self.verbose = args.verbose
        self.base = ""
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.seq = 0
        self.log = []                 # every happening, for /wait and the transcript
        self.calls = []               # every Web API call
        self.violations = []
        self.users = {BOT_USER: {"id": BOT_USER, "name": BOT_NAME, "is_bot": True}}
        self.channels = {}            # id -> {id, type, members:set, user (for im)}
        self.messages = []            # posted messages, oldest first
        self.ephemerals = []
        self.files = {}               # F... -> record
        self.uploads = {}             # upload ticket -> file id
        self.tickets = set()
        self.connections = {}
        self.next_conn = 0
        self.envelopes = {}           # envelope_id -> record
        self.pending_events = []      # events_api envelopes waiting for a socket
        self.windows = {}             # method -> end of an announced Retry-After window
        self.calls_in_window = []
        self.forced = []              # {method, retry_after, count}
        self.recent = {}              # method(/channel) -> [timestamps]
        self.revoked = False
        self.link_disabled = False
        self.echo = True
        self.ts_counter = 0
        self.file_counter = 0
        threading.Thread(target=self.ticker, daemon=True).start()

    # ------------------------------------------------------------ bookkeeping
    def note(self, kind, **fields):
        with self.lock:
            self.seq += 1
            entry = dict(fields, kind=kind, seq=self.seq, at=round(now(), 3))
            self.log.append(entry)
            if self.transcript_path:
                try:
                    with open(self.transcript_path, "a") as f:
                        f.write(json.dumps(entry, ensure_ascii=False) + "\n")
                except OSError:
                    pass
            self.changed.notify_all()
            return entry

    def violation(self, severity, method, detail):
        with self.lock:
            self.violations.append({"severity": severity, "method": method, "detail": detail, "at": round(now(), 3)})
            self.note("violation", severity=severity, method=method, detail=detail)

    def new_ts(self):
        with self.lock:
            self.ts_counter += 1
            return "%d.%06d" % (int(now()), self.ts_counter)

    def user(self, uid, name=None):
        with self.lock:
            record = self.users.setdefault(uid, {"id": uid, "name": name or uid.lower(), "is_bot": False})
            if name:
                record["name"] = name
            return record

    def dm_channel(self, uid):
        with self.lock:
            cid = "D" + uid[1:] if uid.startswith("U") else "D" + uid
            self.channels.setdefault(cid, {"id": cid, "type": "im", "members": {uid, BOT_USER}, "user": uid})
            return cid

    def channel(self, cid, kind=None):
        with self.lock:
            if cid not in self.channels:
                # D… ids are direct messages, G… private channels (slack-api.md §4 slash_commands, §5).
                kind = kind or ("im" if cid.startswith("D") else "group" if cid.startswith("G") else "channel")
                self.channels[cid] = {"id": cid, "type": kind, "members": {BOT_USER}}
            return self.channels[cid]

    # ------------------------------------------------------------ rate limits
    def rate_check(self, method, args):
        t = now()
        with self.lock:
            end = self.windows.get(method)
            if end is not None and t < end - 0.05:
                self.calls_in_window.append({"method": method, "at": t, "window_end": end})
                self.violation("error", method, "called %.2f s inside an announced Retry-After window" % (end - t))
            for forced in self.forced:
                if forced["method"] == method and forced["count"] > 0:
                    forced["count"] -= 1
                    if forced.get("status") == 200:
                        # slack-web-openapi.json: `rate_limited` is in chat.postMessage's and
                        # chat.update's error lists, an HTTP 200 `ok: false` with no Retry-After
                        # (§8: sustained posting is throttled).
                        raise ApiError("rate_limited")
                    self.announce(method, forced["retry_after"])
                    raise ApiError("ratelimited", 429, {"Retry-After": str(forced["retry_after"])})
            if method == "chat.postMessage":
                key, limit, span = "post/" + str(args.get("channel")), POST_PER_CHANNEL_BURST, 5.0
            elif method in METHOD_TIER:
                tier = METHOD_TIER[method]
                key, limit, span = method, TIER[tier] + (TIER1_BURST if tier == 1 else 0), 60.0
            else:
                return
            stamps = [s for s in self.recent.get(key, []) if s > t - span]
            if len(stamps) >= limit:
                retry = max(1, int(stamps[0] + span - t + 0.999))
                self.recent[key] = stamps
                self.announce(method, retry)
                self.violation("error", method, "over its rate limit (%d in %.0f s): 429 under normal load" % (len(stamps), span))
                raise ApiError("ratelimited", 429, {"Retry-After": str(retry)})
            stamps.append(t)
            self.recent[key] = stamps

    def announce(self, method, seconds):
        self.windows[method] = max(self.windows.get(method, 0), now() + seconds)
        self.note("ratelimited", method=method, retry_after=seconds)

    # ------------------------------------------------------------ Web API
    def api(self, method, headers, body, query):
        auth = headers.get("Authorization") or ""
        token = auth[7:].strip() if auth.startswith("Bearer ") else None
        if query:
            q = urllib.parse.parse_qs(query)
            if "token" in q:
                self.violation("error", method, "token in the query string")
        ctype = (headers.get("Content-Type") or "").strip()
        warnings = []
        args = {}
        if body:
            if not ctype:
                raise ApiError("missing_post_type")
            base_type = ctype.split(";")[0].strip().lower()
            has_charset = "charset" in ctype.lower()
            if base_type == "application/json":
                if not has_charset:
                    warnings.append("missing_charset")
                    self.violation("warning", method, "JSON body without charset")
                try:
                    parsed = json.loads(body.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    raise ApiError("invalid_json")
                if not isinstance(parsed, dict):
                    raise ApiError("json_not_object")
                if "token" in parsed:
                    self.violation("error", method, "token inside a JSON body")
                if method in READ_METHODS:
                    self.violation("warning", method, "JSON body to a read method: its arguments are dropped")
                    parsed = {}
                args = parsed
            elif base_type == "application/x-www-form-urlencoded":
                if has_charset:
                    warnings.append("superfluous_charset")
                    self.violation("warning", method, "form body with a charset")
                args = {k: v[-1] for k, v in urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
                if "token" in args:
                    token = token or args.pop("token")
            else:
                raise ApiError("invalid_form_data")
        handler = getattr(self, "m_" + method.replace(".", "_"), None)
        if handler is None:
            raise ApiError("unknown_method", 404)
        if not token:
            raise ApiError("not_authed")
        wanted = self.app_token if method == "apps.connections.open" else self.bot_token
        if token not in (self.bot_token, self.app_token):
            raise ApiError("invalid_auth")
        if self.revoked:
            raise ApiError("token_revoked")
        if token != wanted:
            raise ApiError("not_allowed_token_type")
        self.rate_check(method, args)
        out = handler(args)
        out = dict(out or {})
        out["ok"] = True
        if warnings:
            out["warning"] = ",".join(warnings)
            out["response_metadata"] = {"warnings": warnings}
        return out

    def need(self, args, *names):
        for name in names:
            if args.get(name) in (None, ""):
                raise ApiError("invalid_arguments", extra={"response_metadata": {"messages": ["[ERROR] missing required field: %s" % name]}})

    def resolve_channel(self, cid, method):
        if not isinstance(cid, str) or not cid:
            raise ApiError("channel_not_found")
        with self.lock:
            if cid.startswith("U"):
                if method == "chat.postMessage":
                    return self.dm_channel(cid)
                raise ApiError("channel_not_found")
            if cid.startswith("D"):
                if cid not in self.channels:
                    raise ApiError("channel_not_found")
                return cid
            if cid[0] in "CG":
                self.channel(cid)
                return cid
            raise ApiError("channel_not_found")

    def check_text(self, method, text, limit_error):
        if not isinstance(text, str):
            return
        if len(text) > 4000:
            if limit_error:
                raise ApiError("msg_too_long")
            self.violation("warning", method, "text of %d characters (keep it within 4,000)" % len(text))
        for token in re.finditer(r"<([^<>]*)>?", text):
            inner = token.group(1)
            if not token.group(0).endswith(">") or not re.match(r"^(https?://|mailto:|@[UW]|#[CG]|!)", inner):
                self.violation("error", method, "unescaped '<' in mrkdwn: %r" % text[max(0, token.start() - 20):token.end() + 20])
                break
        if re.search(r"&(?!(amp|lt|gt);)", text):
            self.violation("error", method, "unescaped '&' in mrkdwn")
        if re.search(r"```[A-Za-z]+\n", text):
            self.violation("warning", method, "a code fence with a language (Slack shows it as text)")
        if re.search(r"\[[^\]]+\]\(https?://", text):
            self.violation("warning", method, "a markdown link [text](url): Slack shows it literally")

    def check_blocks(self, blocks):
        if blocks is None:
            return None
        if isinstance(blocks, str):
            try:
                blocks = json.loads(blocks)
            except ValueError:
                raise ApiError("invalid_blocks_format")
        problems = []
        if not isinstance(blocks, list):
            raise ApiError("invalid_blocks_format")
        if len(blocks) > 50:
            problems.append("more than 50 blocks")
        block_ids, action_ids = set(), set()
        for i, block in enumerate(blocks):
            where = "/blocks/%d" % i
            kind = block.get("type") if isinstance(block, dict) else None
            if kind not in ("section", "actions", "context", "header", "divider", "rich_text", "markdown"):
                problems.append("%s: unknown block type %r" % (where, kind))
                continue
            if "block_id" in block:
                if block["block_id"] in block_ids or len(str(block["block_id"])) > 255:
                    problems.append("%s/block_id: duplicate or too long" % where)
                block_ids.add(block["block_id"])
            if kind == "section":
                text = block.get("text") or {}
                body = text.get("text", "")
                if text.get("type") not in ("mrkdwn", "plain_text") or not (1 <= len(body) <= 3000):
                    problems.append("%s/text: must be a text object of 1-3000 characters (has %d)" % (where, len(body)))
            elif kind == "header":
                text = block.get("text") or {}
                if text.get("type") != "plain_text" or not (1 <= len(text.get("text", "")) <= 150):
                    problems.append("%s/text: header needs plain_text of 1-150 characters" % where)
            elif kind == "context":
                elements = block.get("elements") or []
                if not (1 <= len(elements) <= 10):
                    problems.append("%s/elements: 1-10 elements" % where)
            elif kind == "actions":
                elements = block.get("elements") or []
                if not (1 <= len(elements) <= 25):
                    problems.append("%s/elements: 1-25 elements" % where)
                for j, element in enumerate(elements):
                    at = "%s/elements/%d" % (where, j)
                    aid = element.get("action_id")
                    if aid is not None:
                        if aid in action_ids or len(aid) > 255:
                            problems.append("%s/action_id: duplicate in the message or too long" % at)
                        action_ids.add(aid)
                    if element.get("type") == "button":
                        label = (element.get("text") or {})
                        if label.get("type") != "plain_text" or not (1 <= len(label.get("text", "")) <= 75):
                            problems.append("%s/text: button text must be plain_text of 1-75 characters" % at)
                        if len(str(element.get("value", ""))) > 2000:
                            problems.append("%s/value: over 2000 characters" % at)
                        if "style" in element and element["style"] not in BUTTON_STYLES:
                            problems.append("%s/style: must be primary or danger" % at)
                        if "disabled" in element:
                            problems.append("%s: no field 'disabled' on a button" % at)
                    elif element.get("type") == "static_select":
                        options = element.get("options") or []
                        if not (1 <= len(options) <= 100):
                            problems.append("%s/options: 1-100 options" % at)
                        for k, option in enumerate(options):
                            if len((option.get("text") or {}).get("text", "")) > 75 or len(str(option.get("value", ""))) > 150:
                                problems.append("%s/options/%d: text over 75 or value over 150" % (at, k))
                        placeholder = element.get("placeholder")
                        if placeholder is not None and len(placeholder.get("text", "")) > 150:
                            problems.append("%s/placeholder: over 150" % at)
                    else:
                        problems.append("%s: unknown element type %r" % (at, element.get("type")))
        if problems:
            raise ApiError("invalid_blocks", extra={"response_metadata": {"messages": ["[ERROR] " + p for p in problems]}})
        return blocks

    def m_auth_test(self, args):
        return {"url": "https://%s.slack.invalid/" % TEAM_NAME, "team": TEAM_NAME, "user": BOT_NAME, "team_id": TEAM_ID,
                "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}

    def m_apps_connections_open(self, args):
        ticket = secrets.token_hex(12)
        with self.lock:
            self.tickets.add(ticket)
        host = self.base.replace("http://", "ws://").rsplit("/api", 1)[0]
        return {"url": "%s/link/?ticket=%s&app_id=%s" % (host, ticket, APP_ID)}

    def m_conversations_open(self, args):
        users = str(args.get("users") or "")
        ids = [u for u in users.split(",") if u]
        if len(ids) != 1 or not ids[0].startswith("U"):
            raise ApiError("users_list_not_supplied" if not ids else "invalid_arguments")
        self.user(ids[0])
        return {"channel": {"id": self.dm_channel(ids[0])}}

    def m_users_info(self, args):
        uid = args.get("user")
        with self.lock:
            if uid not in self.users:
                raise ApiError("user_not_found")
            u = self.users[uid]
            return {"user": {"id": uid, "name": u["name"], "real_name": u["name"], "is_bot": u["is_bot"], "deleted": False,
                             "tz": "UTC", "profile": {"display_name": u["name"]}}}

    def post(self, method, channel, text, blocks, thread_ts, files=None, by_bot=True, user=None):
        with self.lock:
            ts = self.new_ts()
            message = {"channel": channel, "ts": ts, "text": text or "", "blocks": blocks, "thread_ts": thread_ts,
                       "user": BOT_USER if by_bot else user, "bot_id": BOT_ID if by_bot else None, "edits": [],
                       "files": files or [], "reactions": {}, "deleted": False}
            self.messages.append(message)
            self.note("message", channel=channel, ts=ts, text=text or "", thread_ts=thread_ts, by_bot=by_bot,
                      user=message["user"], files=[f["name"] for f in files or []], method=method)
            return message

    def m_chat_postMessage(self, args):
        self.need(args, "channel")
        channel = self.resolve_channel(args.get("channel"), "chat.postMessage")
        text, blocks = args.get("text"), self.check_blocks(args.get("blocks"))
        if not text and not blocks:
            raise ApiError("no_text")
        if not text:
            self.violation("warning", "chat.postMessage", "blocks without the fallback text")
        if len(text or "") > 40000:
            raise ApiError("msg_too_long")
        self.check_text("chat.postMessage", text, False)
        self.check_mentionable(channel)
        thread_ts = args.get("thread_ts")
        if thread_ts:
            self.check_thread(channel, thread_ts)
        message = self.post("chat.postMessage", channel, text, blocks, thread_ts)
        self.echo_event(message)
        return {"channel": channel, "ts": message["ts"], "message": self.public(message)}

    def check_mentionable(self, channel):
        with self.lock:
            record = self.channels.get(channel)
            if record and BOT_USER not in record["members"]:
                # A public channel the bot may join says so; a DM between people or a private
                # channel it was not added to is one it has no access to (slack-api.md §9).
                raise ApiError("not_in_channel" if record["type"] == "channel" else "channel_not_found")

    def check_thread(self, channel, thread_ts):
        with self.lock:
            parent = self.find(channel, thread_ts)
            if parent is None:
                self.violation("warning", "chat.postMessage", "thread_ts %s names no message in %s" % (thread_ts, channel))
            elif parent.get("thread_ts") and parent["thread_ts"] != parent["ts"]:
                self.violation("error", "chat.postMessage", "thread_ts %s is a reply, not the thread's parent" % thread_ts)

    def find(self, channel, ts):
        for message in self.messages:
            if message["channel"] == channel and message["ts"] == ts and not message["deleted"]:
                return message
        return None

    def m_chat_update(self, args):
        self.need(args, "channel", "ts")
        channel = self.resolve_channel(args.get("channel"), "chat.update")
        text = args.get("text")
        blocks = self.check_blocks(args.get("blocks"))
        if text is None and blocks is None:
            raise ApiError("no_text")
        self.check_text("chat.update", text, True)
        with self.lock:
            message = self.find(channel, str(args.get("ts")))
            if message is None:
                raise ApiError("message_not_found")
            if message["bot_id"] != BOT_ID:
                raise ApiError("cant_update_message")
            if (message["text"] == (text or "")) and message["blocks"] == blocks:
                self.violation("warning", "chat.update", "an update that changes nothing")
            message["edits"].append({"text": message["text"], "at": round(now(), 3)})
            message["text"] = text or ""
            message["blocks"] = blocks
            self.note("edit", channel=channel, ts=message["ts"], text=text or "", edit_count=len(message["edits"]))
        self.echo_changed(message)
        return {"channel": channel, "ts": message["ts"], "text": message["text"], "message": self.public(message)}

    def m_chat_delete(self, args):
        self.need(args, "channel", "ts")
        channel = self.resolve_channel(args.get("channel"), "chat.delete")
        with self.lock:
            message = self.find(channel, str(args.get("ts")))
            if message is None:
                raise ApiError("message_not_found")
            if message["bot_id"] != BOT_ID:
                raise ApiError("cant_delete_message")
            message["deleted"] = True
            self.note("delete", channel=channel, ts=message["ts"])
        return {"channel": channel, "ts": message["ts"]}

    def m_chat_postEphemeral(self, args):
        self.need(args, "channel", "user")
        channel = self.resolve_channel(args.get("channel"), "chat.postEphemeral")
        text, blocks = args.get("text"), self.check_blocks(args.get("blocks"))
        if not text and not blocks:
            raise ApiError("no_text")
        self.check_text("chat.postEphemeral", text, False)
        self.check_mentionable(channel)
        with self.lock:
            if args["user"] not in self.channels[channel]["members"]:
                raise ApiError("user_not_in_channel")
            ts = self.new_ts()
            record = {"channel": channel, "user": args["user"], "text": text or "", "blocks": blocks,
                      "thread_ts": args.get("thread_ts"), "message_ts": ts}
            self.ephemerals.append(record)
            self.note("ephemeral", channel=channel, user=args["user"], text=text or "", message_ts=ts)
        return {"message_ts": ts}

    def m_reactions_add(self, args):
        return self.reaction(args, True)

    def m_reactions_remove(self, args):
        return self.reaction(args, False)

    def reaction(self, args, add):
        self.need(args, "channel", "timestamp", "name")
        name = str(args["name"])
        if ":" in name or not re.match(r"^[a-z0-9_+\-']+$", name):
            raise ApiError("invalid_name")
        channel = self.resolve_channel(args.get("channel"), "reactions")
        with self.lock:
            message = self.find(channel, str(args["timestamp"]))
            if message is None:
                raise ApiError("message_not_found")
            users = message["reactions"].setdefault(name, [])
            if add:
                if BOT_USER in users:
                    raise ApiError("already_reacted")
                users.append(BOT_USER)
            else:
                if BOT_USER not in users:
                    raise ApiError("no_reaction")
                users.remove(BOT_USER)
                if not users:
                    del message["reactions"][name]
            self.note("reaction", channel=channel, ts=message["ts"], name=name, added=add)
        return {}

    def m_files_getUploadURLExternal(self, args):
        self.need(args, "filename", "length")
        try:
            length = int(args["length"])
        except (TypeError, ValueError):
            raise ApiError("invalid_arguments")
        if length <= 0:
            raise ApiError("invalid_arguments")
        with self.lock:
            self.file_counter += 1
            fid = "F%08d" % self.file_counter
            ticket = secrets.token_hex(10)
            self.files[fid] = {"id": fid, "name": str(args["filename"]), "length": length, "bytes": None, "completed": False,
                               "title": str(args["filename"]), "mimetype": "application/octet-stream", "user": BOT_USER}
            self.uploads[ticket] = fid
        host = self.base.rsplit("/api", 1)[0]
        return {"upload_url": "%s/upload/v1/%s" % (host, ticket), "file_id": fid}

    def m_files_completeUploadExternal(self, args):
        self.need(args, "files")
        entries = args["files"]
        if isinstance(entries, str):
            try:
                entries = json.loads(entries)
            except ValueError:
                raise ApiError("invalid_arguments")
        if not isinstance(entries, list) or not entries:
            raise ApiError("invalid_arguments")
        shared = []
        with self.lock:
            for entry in entries:
                record = self.files.get(entry.get("id"))
                if record is None or record["bytes"] is None:
                    raise ApiError("file_not_found")
                if record["completed"]:
                    self.violation("error", "files.completeUploadExternal", "file %s completed twice" % record["id"])
                    raise ApiError("file_not_found")
                record["completed"] = True
                if entry.get("title"):
                    record["title"] = entry["title"]
                shared.append(record)
            channel = args.get("channel_id")
            if channel:
                channel = self.resolve_channel(channel, "files.completeUploadExternal")
                thread_ts = args.get("thread_ts")
                message = self.post("files.completeUploadExternal", channel, args.get("initial_comment") or "", None, thread_ts,
                                    files=[self.file_json(r) for r in shared])
                self.echo_event(message, subtype="file_share")
        return {"files": [{"id": r["id"], "title": r["title"]} for r in shared]}

    def file_json(self, record):
        host = self.base.rsplit("/api", 1)[0]
        url = "%s/files-pri/%s-%s/%s" % (host, TEAM_ID, record["id"], urllib.parse.quote(record["name"]))
        return {"id": record["id"], "name": record["name"], "title": record["title"], "mimetype": record["mimetype"],
                "filetype": record["name"].rsplit(".", 1)[-1] if "." in record["name"] else "binary",
                "size": len(record["bytes"] or b""), "url_private": url, "url_private_download": url + "?download=1",
                "mode": "hosted", "user": record["user"],
                **{k: record[k] for k in ("subtype", "media_display_type", "duration_ms") if k in record}}

    def public(self, message):
        out = {"type": "message", "text": message["text"], "ts": message["ts"], "user": message["user"]}
        if message["bot_id"]:
            out["bot_id"] = message["bot_id"]
        if message["blocks"] is not None:
            out["blocks"] = message["blocks"]
        if message["thread_ts"]:
            out["thread_ts"] = message["thread_ts"]
        if message["files"]:
            out["files"] = message["files"]
        return out

    # ------------------------------------------------------------ Socket Mode
    def open_socket(self, ticket, sock):
        with self.lock:
            if ticket not in self.tickets:
                return None
            self.tickets.discard(ticket)
            self.next_conn += 1
            conn = Connection(self.next_conn, sock)
            self.connections[conn.id] = conn
            count = sum(1 for c in self.connections.values() if c.open)
        self.note("connect", connection=conn.id)
        if count > MAX_CONNECTIONS:
            conn.send_text(json.dumps({"type": "disconnect", "reason": "too_many_websockets", "debug_info": {"host": "fake"}}))
            conn.close(1008, "too many websockets")
            return conn
        conn.send_text(json.dumps({"type": "hello", "num_connections": count, "connection_info": {"app_id": APP_ID},
                                   "debug_info": {"host": "applink-fake-%d" % conn.id, "build_number": 1,
                                                  "approximate_connection_time": 18060}}))
        conn.hello_at = now()
        self.note("hello", connection=conn.id)
        self.flush_pending()
        return conn

    def socket_closed(self, conn, why):
        with self.lock:
            conn.open = False
            self.note("socket_closed", connection=conn.id, why=why)

    def live_connection(self):
        # Spec §3.8: with several connections open (up to 10 per app), each payload goes to any
        # one of them; one that Slack announced it will close (§3.7) gets nothing new while
        # another is up.
        with self.lock:
            candidates = [c for c in self.connections.values() if c.open and c.hello_at and c.closing_at is None]
            if not candidates:
                candidates = [c for c in self.connections.values() if c.open and c.hello_at]
            return random.choice(candidates) if candidates else None

    def deliver(self, kind, payload, retry_attempt=0, retry_reason="", envelope_id=None):
        envelope = {"envelope_id": envelope_id or str(uuid.uuid4()), "type": kind, "payload": payload,
                    "accepts_response_payload": kind != "events_api"}
        if kind == "events_api":
            envelope["retry_attempt"] = retry_attempt
            envelope["retry_reason"] = retry_reason
        with self.lock:
            conn = self.live_connection()
            record = {"envelope_id": envelope["envelope_id"], "type": kind, "payload": payload, "sent_at": None,
                      "connection": None, "acked_at": None, "ack_connection": None, "retry_attempt": retry_attempt,
                      "late": False, "event_id": payload.get("event_id") if kind == "events_api" else None,
                      "response": None, "failed": None}
            self.envelopes[envelope["envelope_id"]] = record
            if conn is None:
                if kind == "events_api":
                    self.pending_events.append(record)
                    self.note("queued", envelope_id=record["envelope_id"], event_id=record["event_id"])
                else:
                    record["failed"] = "dispatch_failed"
                    self.note("dispatch_failed", envelope_id=record["envelope_id"], type=kind)
                return record
            record["sent_at"] = now()
            record["connection"] = conn.id
        conn.send_text(json.dumps(envelope))
        self.note("envelope", envelope_id=record["envelope_id"], type=kind, connection=conn.id, retry_attempt=retry_attempt,
                  event_id=record["event_id"])
        return record

    def flush_pending(self):
        with self.lock:
            waiting, self.pending_events = self.pending_events, []
        for record in waiting:
            # Delivered as a retry: Slack tried while no socket was open (spec section 3.6).
            self.deliver("events_api", record["payload"], retry_attempt=record["retry_attempt"] + 1, retry_reason="timeout")

    def acked(self, conn, text):
        try:
            ack = json.loads(text)
        except ValueError:
            self.violation("error", "socket", "a frame that is not JSON")
            return
        eid = ack.get("envelope_id") if isinstance(ack, dict) else None
        with self.lock:
            record = self.envelopes.get(eid)
            if record is None:
                self.violation("error", "socket", "ack for an unknown envelope %r" % eid)
                return
            if record["acked_at"] is not None:
                self.violation("warning", "socket", "envelope %s acked twice" % eid)
                return
            record["acked_at"] = now()
            record["ack_connection"] = conn.id
            record["response"] = ack.get("payload")
            if record["connection"] != conn.id:
                self.violation("error", "socket", "envelope %s acked on another socket" % eid)
            if record["acked_at"] - record["sent_at"] > self.ack_deadline:
                record["late"] = True
                self.violation("error", "socket", "envelope %s acked after %.2f s" % (eid, record["acked_at"] - record["sent_at"]))
            self.note("ack", envelope_id=eid, connection=conn.id, type=record["type"],
                      delay=round(record["acked_at"] - record["sent_at"], 3), payload=record["response"])

    def ticker(self):
        while True:
            time.sleep(0.1)
            t = now()
            retries = []
            with self.lock:
                for record in list(self.envelopes.values()):
                    if record["acked_at"] is not None or record["sent_at"] is None or record.get("expired"):
                        continue
                    conn = self.connections.get(record["connection"])
                    age = t - record["sent_at"]
                    if age > self.ack_deadline and not record["late"] and conn is not None and conn.open:
                        record["late"] = True
                        self.violation("error", "socket", "envelope %s not acked within %.0f s on an open socket"
                                       % (record["envelope_id"], self.ack_deadline))
                    if record["type"] != "events_api":
                        if age > self.ack_deadline:
                            record["expired"] = True
                            record["failed"] = "operation_timeout"
                            self.note("operation_timeout", envelope_id=record["envelope_id"])
                        continue
                    attempt = record["retry_attempt"]
                    if attempt < len(self.retry_delays) and age > self.ack_deadline + self.retry_delays[attempt]:
                        record["expired"] = True
                        retries.append(record)
                for conn in self.connections.values():
                    if conn.open and conn.closing_at is not None and t >= conn.closing_at:
                        self.note("server_close", connection=conn.id, reason=conn.disconnect_reason)
                        conn.close(1001, "going away")
                    elif conn.open and (t - getattr(conn, "pinged", 0)) > 5:
                        conn.pinged = t
                        conn.send_frame(ws_server.OP_PING, b"fake")
            for record in retries:
                self.deliver("events_api", record["payload"], retry_attempt=record["retry_attempt"] + 1, retry_reason="timeout")

    # ------------------------------------------------------------ events from users
    def event_envelope(self, event):
        return {"token": "legacyVerificationTokenDoNotLog", "team_id": TEAM_ID, "api_app_id": APP_ID, "event": event,
                "type": "event_callback", "event_id": "Ev" + secrets.token_hex(5).upper(), "event_time": int(now()),
                "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER, "is_bot": True}],
                "is_ext_shared_channel": False}

    def channel_type(self, channel):
        kind = self.channels.get(channel, {}).get("type", "channel")
        return {"im": "im", "group": "group", "channel": "channel"}.get(kind, "channel")

    def echo_event(self, message, subtype=None):
        if not self.echo:
            return
        event = dict(self.public(message), channel=message["channel"], channel_type=self.channel_type(message["channel"]),
                     event_ts=message["ts"])
        if subtype:
            event["subtype"] = subtype
        self.deliver("events_api", self.event_envelope(event))

    def echo_changed(self, message):
        if not self.echo:
            return
        event = {"type": "message", "subtype": "message_changed", "hidden": True, "channel": message["channel"],
                 "channel_type": self.channel_type(message["channel"]), "ts": self.new_ts(), "event_ts": self.new_ts(),
                 "message": self.public(message)}
        self.deliver("events_api", self.event_envelope(event))

    def c_message(self, body):
        uid = body.get("user") or ""
        if not uid:
            raise ControlError(400, "user is required")
        self.user(uid, body.get("name"))
        with self.lock:
            channel = body.get("channel") or self.dm_channel(uid)
            record = self.channel(channel, body.get("channel_type"))
            record["members"].add(uid)
            if body.get("bot_not_member"):
                record["members"].discard(BOT_USER)
        files = []
        for f in body.get("files") or []:
            with self.lock:
                self.file_counter += 1
                fid = "F%08d" % self.file_counter
                data = base64.b64decode(f.get("content_b64", "")) if "content_b64" in f else b"x" * int(f.get("size", 1))
                self.files[fid] = {"id": fid, "name": f.get("name", "file.bin"), "title": f.get("name", "file.bin"),
                                   "mimetype": f.get("mimetype", "application/octet-stream"), "bytes": data, "completed": True,
                                   "length": len(data), "user": uid}
                if f.get("audio_clip"):
                    # An audio clip (Tests/Fakes/specs/slack-audio-clips.md §1): subtype slack_audio,
                    # media_display_type audio, duration_ms, and a mimetype that may say video/*.
                    self.files[fid].update(subtype="slack_audio", media_display_type="audio",
                                           duration_ms=int(f.get("duration_ms", 1000)))
                record_json = self.file_json(self.files[fid])
                if "size" in f:
                    record_json["size"] = int(f["size"])
                files.append(record_json)
        message = self.post("user", channel, body.get("text", ""), None, body.get("thread_ts"), files=files, by_bot=False, user=uid)
        event = dict(self.public(message), channel=channel, channel_type=self.channel_type(channel), event_ts=message["ts"],
                     client_msg_id=str(uuid.uuid4()), team=TEAM_ID)
        if files:
            event["subtype"] = "file_share"
            event["upload"] = False
        if body.get("subtype"):
            event["subtype"] = body["subtype"]
        if body.get("bot_id"):
            event["bot_id"] = body["bot_id"]
        ids = []
        # A bot only sees channels it is a member of (slack-api.md §1): no event from one it is not in.
        if BOT_USER not in record["members"]:
            return {"ts": message["ts"], "channel": channel, "event_ids": ids}
        if body.get("deliver_message", True) and not (record["type"] != "im" and body.get("mention_only")):
            ids.append(self.deliver("events_api", self.event_envelope(event))["event_id"])
        if record["type"] != "im" and ("<@%s>" % BOT_USER) in (body.get("text") or ""):
            mention = {"type": "app_mention", "user": uid, "text": body.get("text", ""), "ts": message["ts"], "channel": channel,
                       "event_ts": message["ts"]}
            if body.get("thread_ts"):
                mention["thread_ts"] = body["thread_ts"]
            if files:
                mention["files"] = files
            ids.append(self.deliver("events_api", self.event_envelope(mention))["event_id"])
        return {"ts": message["ts"], "channel": channel, "event_ids": ids}

    def c_command(self, body):
        uid = body.get("user") or ""
        self.user(uid, body.get("name"))
        with self.lock:
            channel = body.get("channel") or self.dm_channel(uid)
            record = self.channel(channel)
            record["members"].add(uid)
            # `/pi` works in any channel the user types it in, invited or not; what the bot may
            # post there is another matter (slack-api.md §1, §9 not_in_channel).
            if body.get("bot_not_member"):
                record["members"].discard(BOT_USER)
        payload = {"token": "legacyVerificationTokenDoNotLog", "team_id": TEAM_ID, "team_domain": TEAM_NAME, "channel_id": channel,
                   "channel_name": "directmessage" if channel.startswith("D") else "general", "user_id": uid,
                   "user_name": self.users[uid]["name"], "command": "/pi", "text": body.get("text", ""), "api_app_id": APP_ID,
                   "response_url": "https://hooks.slack.invalid/commands/x", "trigger_id": secrets.token_hex(8)}
        record = self.deliver("slash_commands", payload)
        return {"envelope_id": record["envelope_id"], "failed": record["failed"]}

    def c_click(self, body):
        uid = body.get("user") or ""
        self.user(uid, body.get("name"))
        with self.lock:
            message = self.find(body.get("channel"), body.get("ts"))
            if message is None:
                raise ControlError(404, "no message %s in %s" % (body.get("ts"), body.get("channel")))
            found = None
            for block in message["blocks"] or []:
                if block.get("type") != "actions":
                    continue
                for element in block.get("elements", []):
                    label = (element.get("text") or {}).get("text")
                    if element.get("type") == "button" and (label == body.get("label") or element.get("action_id") == body.get("action_id")):
                        found = (block, element, None)
                    if element.get("type") == "static_select" and body.get("option") is not None:
                        for option in element.get("options", []):
                            if option["text"]["text"] == body["option"] or option["value"] == body["option"]:
                                found = (block, element, option)
            if found is None:
                raise ControlError(404, "no such control on the message: %s" % json.dumps(message["blocks"])[:500])
            block, element, option = found
            action = {"type": element["type"], "action_id": element.get("action_id"), "block_id": block.get("block_id", ""),
                      "action_ts": self.new_ts()}
            if option is None:
                action["text"] = element["text"]
                action["value"] = element.get("value", "")
            else:
                action["selected_option"] = option
            payload = {"type": "block_actions", "team": {"id": TEAM_ID, "domain": TEAM_NAME},
                       "user": {"id": uid, "username": self.users[uid]["name"], "name": self.users[uid]["name"], "team_id": TEAM_ID},
                       "api_app_id": APP_ID, "token": "legacyVerificationTokenDoNotLog", "trigger_id": secrets.token_hex(8),
                       "container": {"type": "message", "message_ts": message["ts"], "channel_id": message["channel"],
                                     "is_ephemeral": False},
                       "channel": {"id": message["channel"], "name": "x"}, "message": self.public(message),
                       "state": {"values": {}}, "response_url": "https://hooks.slack.invalid/actions/x", "actions": [action]}
            self.channel(message["channel"])["members"].add(uid)
        record = self.deliver("interactive", payload)
        return {"envelope_id": record["envelope_id"], "failed": record["failed"]}

    def c_disconnect(self, body):
        reason = body.get("reason", "warning")
        close_after = float(body.get("close_after", 10))
        with self.lock:
            targets = [c for c in self.connections.values() if c.open and c.closing_at is None]
            for conn in targets:
                conn.disconnect_reason = reason
                conn.closing_at = now() + close_after
            if reason == "link_disabled":
                self.link_disabled = True
        for conn in targets:
            conn.send_text(json.dumps({"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake-%d" % conn.id}}))
            self.note("disconnect", connection=conn.id, reason=reason)
        return {"connections": [c.id for c in targets]}

    # ------------------------------------------------------------ control reads
    def message_view(self, message):
        out = self.public(message)
        out.update(channel=message["channel"], edit_count=len(message["edits"]), edits=[e["text"] for e in message["edits"]],
                   reactions=dict(message["reactions"]), deleted=message["deleted"], by_bot=message["bot_id"] == BOT_ID,
                   changed_at=message["edits"][-1]["at"] if message["edits"] else int(message["ts"].split(".")[0]))
        return out

    def c_messages(self, q):
        with self.lock:
            out = []
            for message in self.messages:
                if q.get("channel") and message["channel"] != q["channel"]:
                    continue
                if q.get("from") == "bot" and message["bot_id"] != BOT_ID:
                    continue
                if message["deleted"] and q.get("include_deleted") != "1":
                    continue
                out.append(self.message_view(message))
            return out

    def matches(self, q):
        kind = q.get("for")
        count = int(q.get("count", 1))
        contains = q.get("contains")
        with self.lock:
            if kind == "message":
                found = [m for m in self.c_messages(q) if contains is None or contains in m["text"] or
                         any(contains in json.dumps(b, ensure_ascii=False) for b in (m.get("blocks") or []))]
                return found if len(found) >= count else None
            if kind == "ephemeral":
                found = [e for e in self.ephemerals if (not q.get("user") or e["user"] == q["user"]) and
                         (contains is None or contains in e["text"])]
                return found if len(found) >= count else None
            if kind == "hello":
                since = int(q.get("since", 0))
                found = [e for e in self.log if e["kind"] == "hello" and e["seq"] > since]
                return found if len(found) >= count else None
            if kind == "reaction":
                message = self.find(q.get("channel"), q.get("ts"))
                if message and q.get("name") in message["reactions"]:
                    return self.message_view(message)
                return None
            if kind == "ack":
                record = self.envelopes.get(q.get("envelope_id"))
                return {k: v for k, v in record.items() if k != "payload"} if record and record["acked_at"] else None
            if kind == "file":
                found = [m for m in self.c_messages(q) if m.get("files")]
                return found if len(found) >= count else None
        raise ControlError(400, "unknown wait kind %r" % kind)

    def c_wait(self, q):
        deadline = now() + float(q.get("timeout", 30))
        with self.changed:
            while True:
                found = self.matches(q)
                if found is not None:
                    return {"ok": True, "result": found}
                left = deadline - now()
                if left <= 0:
                    return {"ok": False}
                self.changed.wait(min(left, 0.5))

    def envelope_view(self, record, payload=False):
        return {k: v for k, v in record.items() if payload or k != "payload"}

    def control(self, method, path, q, body):
        if method == "GET":
            if path == "/cursor":
                return {"cursor": self.seq}
            if path == "/wait":
                return self.c_wait(q)
            if path == "/messages":
                return {"messages": self.c_messages(q)}
            if path == "/ephemerals":
                with self.lock:
                    return {"ephemerals": [e for e in self.ephemerals if not q.get("channel") or e["channel"] == q["channel"]]}
            if path == "/envelopes":
                with self.lock:
                    return {"envelopes": [self.envelope_view(r, q.get("payload") == "1") for r in self.envelopes.values()]}
            if path == "/calls":
                with self.lock:
                    return {"calls": [c for c in self.calls if not q.get("method") or c["method"] == q["method"]]}
            if path == "/violations":
                with self.lock:
                    return {"violations": [v for v in self.violations if not q.get("severity") or v["severity"] == q["severity"]]}
            if path == "/connections":
                with self.lock:
                    return {"connections": [{"id": c.id, "open": c.open, "hello_at": c.hello_at, "opened_at": c.opened_at,
                                             "closing_at": c.closing_at} for c in self.connections.values()]}
            if path == "/log":
                with self.lock:
                    return {"log": [e for e in self.log if not q.get("kind") or e["kind"] == q["kind"]]}
            if path.startswith("/files/"):
                with self.lock:
                    record = self.files.get(path[len("/files/"):])
                    if record is None:
                        raise ControlError(404, "no such file")
                    return dict({k: v for k, v in record.items() if k != "bytes"},
                                content_b64=base64.b64encode(record["bytes"] or b"").decode())
        if method == "POST":
            if path == "/messages":
                return self.c_message(body)
            if path == "/command":
                return self.c_command(body)
            if path == "/click":
                return self.c_click(body)
            if path == "/invite":
                # A user types `/invite @bot` in the channel: the bot is a member from now on.
                with self.lock:
                    self.channel(body["channel"])["members"].add(BOT_USER)
                self.note("invite", channel=body["channel"])
                return {}
            if path == "/disconnect":
                return self.c_disconnect(body)
            if path == "/rate_limit":
                with self.lock:
                    self.forced.append({"method": body["method"], "retry_after": int(body.get("retry_after", 1)),
                                        "count": int(body.get("count", 1)), "status": int(body.get("status", 429))})
                return {}
            if path == "/redeliver":
                # An ack lost on its way: Slack delivers the event again as a retry.
                with self.lock:
                    found = [r for r in self.envelopes.values() if r["event_id"] == body.get("event_id")]
                if not found:
                    raise ControlError(404, "no envelope with event %s" % body.get("event_id"))
                last = found[-1]
                record = self.deliver("events_api", last["payload"], retry_attempt=last["retry_attempt"] + 1, retry_reason="timeout")
                return {"envelope_id": record["envelope_id"]}
            if path == "/revoke":
                self.revoked = True
                return {}
            if path == "/echo":
                self.echo = bool(body.get("on", True))
                return {}
            if path == "/drop_sockets":
                with self.lock:
                    targets = [c for c in self.connections.values() if c.open]
                for conn in targets:
                    conn.close(1011, "server error")
                return {"dropped": [c.id for c in targets]}
        raise ControlError(404, "no control endpoint %s %s" % (method, path))


class Handler(BaseHTTPRequestHandler):
    # The body goes out at once, as a real server sends it. http.server writes the headers and
    # the body in two sends; with Nagle's algorithm the body waited for the client's delayed ACK
    # (~40 ms), a delay no real platform adds (measured: half of all Telegram updates took it).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    slack = None

    def log_message(self, fmt, *args):
        if self.slack.verbose:
            sys.stderr.write("fake-slack: " + (fmt % args) + "\n")

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        path, _, query = self.path.partition("?")
        slack = self.slack
        try:
            if path.startswith("/_control"):
                return self.control("GET", path, query, None)
            if path.rstrip("/") == "/link":
                return self.websocket(query)
            if path.startswith("/files-pri/"):
                return self.download(path)
            self.send_json(404, {"ok": False, "error": "not_found"})
        except Exception:
            traceback.print_exc()
            slack.violation("error", "fake", "fake crashed on GET %s" % path)
            self.send_json(500, {"ok": False, "error": "fatal_error"})

    def do_POST(self):
        path, _, query = self.path.partition("?")
        slack = self.slack
        body = self.body()
        if path.startswith("/_control"):
            try:
                parsed = json.loads(body.decode("utf-8")) if body else {}
            except ValueError:
                return self.send_json(400, {"error": "control body is not JSON"})
            return self.control("POST", path, query, parsed)
        if path.startswith("/upload/v1/"):
            ticket = path[len("/upload/v1/"):]
            with slack.lock:
                fid = slack.uploads.pop(ticket, None)
                if fid is None:
                    slack.violation("error", "upload", "upload URL used twice or unknown")
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = body
                ctype = self.headers.get("Content-Type") or ""
                if ctype.startswith("multipart/form-data"):
                    data = multipart_file(body, ctype)
                slack.files[fid]["bytes"] = data
                if len(data) != slack.files[fid]["length"]:
                    slack.violation("error", "upload", "file %s: %d bytes uploaded, %d announced" % (fid, len(data), slack.files[fid]["length"]))
                slack.note("upload", file_id=fid, size=len(data))
            reply = ("OK - %d" % len(data)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        if not path.startswith("/api/"):
            return self.send_json(404, {"ok": False, "error": "not_found"})
        method = path[len("/api/"):]
        call = {"method": method, "at": round(now(), 3)}
        try:
            out = slack.api(method, self.headers, body, query)
            call["ok"] = True
            self.send_json(200, out)
        except ApiError as e:
            call["ok"], call["error"] = False, e.error
            try:
                self.send_json(e.status, dict(e.extra, ok=False, error=e.error), e.headers)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            # The client hung up before its answer was written (a plugin stopping mid-call): the
            # call was made, and Slack does not mind a closed connection. Not the fake's crash.
            self.close_connection = True
        except Exception:
            traceback.print_exc()
            call["ok"], call["error"] = False, "fatal_error"
            slack.violation("error", method, "fake crashed on %s" % method)
            self.send_json(500, {"ok": False, "error": "fatal_error"})
        with slack.lock:
            slack.calls.append(call)
            slack.note("call", method=method, ok=call["ok"], error=call.get("error"))

    def control(self, method, path, query, body):
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        sub = path[len("/_control"):].rstrip("/") or "/"
        if sub == "/transcript.txt":
            with self.slack.lock:
                text = "\n".join(json.dumps(e, ensure_ascii=False) for e in self.slack.log).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        try:
            out = self.slack.control(method, sub, q, body or {})
            if sub == "/wait" and not out.get("ok"):
                return self.send_json(408, out)
            self.send_json(200, out)
        except ControlError as e:
            self.send_json(e.status, {"error": str(e)})
        except (KeyError, ValueError, TypeError) as e:
            self.send_json(400, {"error": "bad control request: %s" % e})

    def download(self, path):
        slack = self.slack
        auth = self.headers.get("Authorization") or ""
        rest = urllib.parse.unquote(path[len("/files-pri/"):])
        key = rest.split("/", 1)[0]
        fid = key.split("-", 1)[1] if "-" in key else key
        with slack.lock:
            record = slack.files.get(fid)
        if auth != "Bearer " + slack.bot_token or record is None:
            # Slack answers a download without the bot token with its sign-in page, status 200.
            page = b"<!DOCTYPE html><html><body>Sign in to Slack</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            if auth != "Bearer " + slack.bot_token:
                slack.note("download_refused", file_id=fid)
            return
        data = record["bytes"] or b""
        self.send_response(200)
        self.send_header("Content-Type", record["mimetype"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        slack.note("download", file_id=fid)

    def websocket(self, query):
        slack = self.slack
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(query).items()}
        ok, status, reason = ws_server.check_handshake(self.command, self.headers)
        if not ok:
            return self.send_json(status, {"error": reason})
        ticket = q.get("ticket", "")
        with slack.lock:
            valid = ticket in slack.tickets
        if not valid:
            slack.violation("error", "socket", "a WebSocket URL used twice or never handed out")
            return self.send_json(401, {"error": "invalid ticket"})
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", ws_server.accept_key(self.headers["Sec-WebSocket-Key"]))
        self.end_headers()
        self.wfile.flush()
        sock = self.connection
        sock.settimeout(0.5)
        conn = slack.open_socket(ticket, sock)
        reader = ws_server.FrameReader(sock)
        why = "closed"
        try:
            while conn.open:
                try:
                    message = reader.poll()
                except ws_server.ProtocolError as e:
                    why = "protocol error: %s" % e.reason
                    slack.violation("error", "socket", why)
                    conn.close(e.code, e.reason)
                    break
                if message is None:
                    continue
                if message[0] == "text":
                    slack.acked(conn, message[1])
                elif message[0] == "ping":
                    conn.send_frame(ws_server.OP_PONG, message[1])
                elif message[0] == "close":
                    why = "client closed (%s)" % message[1]
                    conn.close(message[1] or 1000, "")
                    break
        except ws_server.ConnectionLost as e:
            why = "lost: %s" % e
        slack.socket_closed(conn, why)
        self.close_connection = True


def multipart_file(body, ctype):
    match = re.search(r"boundary=\"?([^\";]+)\"?", ctype)
    if not match:
        return body
    boundary = b"--" + match.group(1).encode()
    for part in body.split(boundary):
        head, _, content = part.partition(b"\r\n\r\n")
        if b"filename=" in head:
            return content[:-2] if content.endswith(b"\r\n") else content
    return body


def main(argv=None):
    parser = argparse.ArgumentParser(description="fake Slack for pi-relayd tests")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--control-port-file", required=True)
    parser.add_argument("--bot-token", default=DEFAULT_BOT_TOKEN)
    parser.add_argument("--app-token", default=DEFAULT_APP_TOKEN)
    parser.add_argument("--transcript")
    parser.add_argument("--retry-delays", default="1,3,6",
                        help="seconds after the ack deadline before retry 1, 2, 3 (Slack: ~0, 60, 300)")
    parser.add_argument("--ack-deadline", type=float, default=3.0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    slack = Slack(args)
    Handler.slack = slack
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    slack.base = "http://127.0.0.1:%d/api" % port
    info = {"port": port, "base": slack.base}
    tmp = args.control_port_file + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, args.control_port_file)
    sys.stderr.write("fake-slack listening on %s\n" % json.dumps(info))
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
