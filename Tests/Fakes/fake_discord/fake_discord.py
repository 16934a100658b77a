#!/usr/bin/env python3
"""Fake Discord (REST v10 + gateway v10 + test-control API) for pi-relayd tests.

Test-tree code. Python 3.11 standard library only. Shares no code with the
product. Behaviour follows Discord's documented behaviour (see
/work/shared/specs/discord-api.md and README.md next to this file); where the
docs are silent the choice made is listed in README.md ("Fake's choices").

Usage:
  python3 fake_discord.py --port 0 --control-port-file PATH [--token TOKEN]
      [--heartbeat-ms 1000] [--spec discord-openapi.json] [--app-id ID]
      [--bot-user-id ID] [--guild ID ...] [--channel ID[:NAME[:GUILD]] ...]
      [--user ID[:NAME] ...] [--transcript FILE] [--time-scale X] [--verbose]
"""

import argparse
import base64
import collections
import copy
import hashlib
import hmac
import json
import mimetypes
import os
import re
import secrets
import socket
import struct
import sys
import threading
import time
import traceback
import urllib.parse
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import jsonschema_lite  # noqa: E402
import ws_server  # noqa: E402

DISCORD_EPOCH_MS = 1420070400000
API_PREFIX = "/api/v10"
# A request that arrives this little before a retry window ends is timing noise, not a client
# that ignored retry_after.
RETRY_SLACK_S = 0.02
# A request that arrives this soon after a 429 was answered may have been on its way already
# (another connection, or queued behind a slow server thread): not counted as ignoring it.
RETRY_REACTION_S = 0.1

# ---------------------------------------------------------------- intents
INTENT_BITS = {
    "GUILDS": 0, "GUILD_MEMBERS": 1, "GUILD_MODERATION": 2, "GUILD_EXPRESSIONS": 3,
    "GUILD_INTEGRATIONS": 4, "GUILD_WEBHOOKS": 5, "GUILD_INVITES": 6,
    "GUILD_VOICE_STATES": 7, "GUILD_PRESENCES": 8, "GUILD_MESSAGES": 9,
    "GUILD_MESSAGE_REACTIONS": 10, "GUILD_MESSAGE_TYPING": 11, "DIRECT_MESSAGES": 12,
    "DIRECT_MESSAGE_REACTIONS": 13, "DIRECT_MESSAGE_TYPING": 14, "MESSAGE_CONTENT": 15,
    "GUILD_SCHEDULED_EVENTS": 16, "AUTO_MODERATION_CONFIGURATION": 20,
    "AUTO_MODERATION_EXECUTION": 21, "GUILD_MESSAGE_POLLS": 24, "DIRECT_MESSAGE_POLLS": 25,
}
VALID_INTENTS = sum(1 << b for b in INTENT_BITS.values())
I_GUILDS = 1 << 0
I_GUILD_MESSAGES = 1 << 9
I_GUILD_REACTIONS = 1 << 10
I_GUILD_TYPING = 1 << 11
I_DMS = 1 << 12
I_DM_REACTIONS = 1 << 13
I_DM_TYPING = 1 << 14
I_MESSAGE_CONTENT = 1 << 15
PRIVILEGED = {1 << 1: "guild_members_enabled", 1 << 8: "guild_presences_enabled",
              1 << 15: "message_content_enabled"}

CLOSE_REASONS = {
    4000: "Unknown error.", 4001: "Unknown opcode.", 4002: "Decode error.",
    4003: "Not authenticated.", 4004: "Authentication failed.", 4005: "Already authenticated.",
    4007: "Invalid seq.", 4008: "Rate limited.", 4009: "Session timed out.",
    4010: "Invalid shard.", 4011: "Sharding required.", 4012: "Invalid API version.",
    4013: "Invalid intent(s).", 4014: "Disallowed intent(s).",
}
# server close codes after which the session can NOT be resumed
NON_RESUMABLE_CLOSE = {4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014}

MSG_FLAG_EPHEMERAL = 1 << 6
MSG_FLAG_LOADING = 1 << 7
MSG_FLAG_COMPONENTS_V2 = 1 << 15
MSG_FLAG_VOICE = 1 << 13         # IS_VOICE_MESSAGE (discord-api.md §4): one audio/ogg attachment with duration_secs
# flags a bot may set on create/edit (others are ignored by Discord)
SETTABLE_MSG_FLAGS = (1 << 2) | (1 << 12) | (1 << 13) | MSG_FLAG_COMPONENTS_V2
INTERACTION_SETTABLE_FLAGS = SETTABLE_MSG_FLAGS | MSG_FLAG_EPHEMERAL

# interaction type -> allowed callback types
CALLBACK_TYPES = {1: [1], 2: [4, 5, 9], 3: [4, 5, 6, 7, 9], 4: [8], 5: [4, 5, 6, 7]}

DEFAULT_ROUTE_LIMITS = {
    # group: [limit, window seconds]. "(community)" values from discord-api.md §6
    "message_create": [5, 5.0],
    "message_edit": [5, 5.0],
    "message_delete": [5, 1.0],
    "typing": [5, 5.0],
    "thread_create": [5, 5.0],
    "reaction": [1, 0.25],
    "dm_create": [5, 5.0],
    "commands": [5, 20.0],
    "interaction_callback": [50, 1.0],
    "webhook": [5, 2.0],
    "default": [10, 10.0],
}

DEFAULT_CONFIG = {
    "heartbeat_interval_ms": 41250,
    "heartbeat_timeout_enabled": True,
    "heartbeat_timeout_factor": 1.5,
    "heartbeat_timeout_extra_ms": 1000,
    "drop_heartbeat_acks": False,
    "message_content_enabled": True,
    # The bot's permissions in every guild, as GET /users/@me/guilds reports them (@everyone's
    # here; a test takes some away to play a bot whose role lacks them).
    "bot_guild_permissions": "2248473465835073",
    "guild_members_enabled": False,
    "guild_presences_enabled": False,
    "identify_max_concurrency": 1,
    "identify_window_s": 5.0,
    "gateway_send_limit": 120,
    "gateway_send_window_s": 60.0,
    "max_payload_bytes": 4096,
    "resume_window_s": 180.0,
    "reconnect_close_after_ms": 3000,
    "interaction_deadline_s": 3.0,
    "interaction_token_ttl_s": 900.0,
    "nonce_window_s": 300.0,
    "max_file_size": 10 * 1024 * 1024,
    "max_request_size": 25 * 1024 * 1024,
    "max_files": 10,
    "content_max": 2000,
    "content_length_unit": "codepoints",  # or "utf16"
    "enforce_user_agent": True,
    "schema_validation": True,
    "global_limit": 50,
    "global_window_s": 1.0,
    "old_message_edit_limit": {"enabled": False, "limit": 3, "window_s": 20.0, "age_s": 3600.0},
    "invalid_request_limit": 10000,
    "invalid_request_window_s": 600.0,
}


# ---------------------------------------------------------------- utilities
class Clock:
    """Fake wall clock: anchor + (monotonic elapsed * scale) + offset."""

    def __init__(self, scale=1.0):
        self._lock = threading.Lock()
        self._anchor_wall = time.time()
        self._anchor_mono = time.monotonic()
        self.scale = float(scale)
        self.offset = 0.0

    def now(self):
        with self._lock:
            return self._anchor_wall + (time.monotonic() - self._anchor_mono) * self.scale + self.offset

    def set_scale(self, scale):
        with self._lock:
            cur = self._anchor_wall + (time.monotonic() - self._anchor_mono) * self.scale
            self._anchor_wall = cur
            self._anchor_mono = time.monotonic()
            self.scale = float(scale)

    def advance(self, seconds):
        with self._lock:
            self.offset += float(seconds)


def iso(ts):
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="microseconds")


def snowflake_time(sf):
    return ((int(sf) >> 22) + DISCORD_EPOCH_MS) / 1000.0


class Snowflakes:
    def __init__(self, clock):
        self.clock = clock
        self.last = 0
        self.inc = 0
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            ms = int(self.clock.now() * 1000)
            v = ((ms - DISCORD_EPOCH_MS) << 22) | (1 << 17) | ((os.getpid() & 0x1F) << 12) | (self.inc & 0xFFF)
            self.inc += 1
            if v <= self.last:
                v = self.last + 1
            self.last = v
            return str(v)


class ApiError(Exception):
    def __init__(self, status, code, message, errors=None, headers=None, extra=None):
        super().__init__(message)
        self.status = status
        self.body = {"message": message, "code": code}
        if errors is not None:
            self.body["errors"] = errors
        if extra:
            self.body.update(extra)
        self.headers = headers or {}


def form_error(errors):
    """50035 Invalid Form Body from (path, code, message) tuples."""
    return ApiError(400, 50035, "Invalid Form Body", jsonschema_lite.error_tree(errors))


def unknown(kind):
    codes = {"channel": (10003, "Unknown Channel"), "message": (10008, "Unknown Message"),
             "user": (10013, "Unknown User"), "webhook": (10015, "Unknown Webhook"),
             "interaction": (10062, "Unknown interaction"), "guild": (10004, "Unknown Guild"),
             "command": (10063, "Unknown application command"),
             "application": (10002, "Unknown Application")}
    c, m = codes[kind]
    return ApiError(404, c, m)


def is_snowflake(s):
    return isinstance(s, str) and re.fullmatch(r"0|[1-9][0-9]{0,19}", s) is not None and int(s) < 2 ** 64


def content_len(s, unit):
    if unit == "utf16":
        return len(s.encode("utf-16-le")) // 2
    return len(s)


def image_dims(data):
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    return None


def truthy(v):
    return str(v).lower() in ("1", "true", "yes", "on")


def one_line(s):
    return (s or "").replace("\r\n", "\n").replace("\n", " \u23ce ")


# ---------------------------------------------------------------- routes
class Route:
    def __init__(self, method, template, name, auth, group, major=None, global_exempt=False,
                 op_id=None):
        self.method = method
        self.template = template
        self.name = name
        self.auth = auth  # "bot" | "none" | "optional"
        self.group = group
        self.major = major or []
        self.global_exempt = global_exempt
        self.op_id = op_id or name
        rx = re.sub(r"\{(\w+)\}", lambda m: "(?P<%s>[^/]+)" % m.group(1), re.escape(template).replace(r"\{", "{").replace(r"\}", "}"))
        self.regex = re.compile("^" + rx + "$")

    @property
    def key(self):
        return "%s %s" % (self.method, self.template)


ROUTES = [
    Route("GET", "/gateway", "get_gateway", "none", "default"),
    Route("GET", "/gateway/bot", "get_bot_gateway", "bot", "default"),
    Route("GET", "/users/@me", "get_my_user", "bot", "default"),
    Route("GET", "/users/@me/guilds", "list_my_guilds", "bot", "default"),
    Route("GET", "/applications/@me", "get_my_application", "bot", "default"),
    Route("GET", "/oauth2/applications/@me", "get_my_oauth2_application", "bot", "default"),
    Route("POST", "/users/@me/channels", "create_dm", "bot", "dm_create"),
    Route("GET", "/channels/{channel_id}", "get_channel", "bot", "default", ["channel_id"]),
    Route("GET", "/channels/{channel_id}/messages", "list_messages", "bot", "default", ["channel_id"]),
    Route("POST", "/channels/{channel_id}/messages", "create_message", "bot", "message_create", ["channel_id"]),
    Route("GET", "/channels/{channel_id}/messages/{message_id}", "get_message", "bot", "default", ["channel_id"]),
    Route("PATCH", "/channels/{channel_id}/messages/{message_id}", "update_message", "bot", "message_edit", ["channel_id"]),
    Route("DELETE", "/channels/{channel_id}/messages/{message_id}", "delete_message", "bot", "message_delete", ["channel_id"]),
    Route("POST", "/channels/{channel_id}/typing", "trigger_typing_indicator", "bot", "typing", ["channel_id"]),
    Route("POST", "/channels/{channel_id}/threads", "create_thread", "bot", "thread_create", ["channel_id"]),
    Route("POST", "/channels/{channel_id}/messages/{message_id}/threads", "create_thread_from_message", "bot", "thread_create", ["channel_id"]),
    Route("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me", "add_my_message_reaction", "bot", "reaction", ["channel_id"]),
    Route("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me", "delete_my_message_reaction", "bot", "reaction", ["channel_id"]),
    Route("GET", "/applications/{application_id}/commands", "list_application_commands", "bot", "commands"),
    Route("PUT", "/applications/{application_id}/commands", "bulk_set_application_commands", "bot", "commands"),
    Route("GET", "/applications/{application_id}/guilds/{guild_id}/commands", "list_guild_application_commands", "bot", "commands", ["guild_id"]),
    Route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", "bulk_set_guild_application_commands", "bot", "commands", ["guild_id"]),
    Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback", "create_interaction_response", "optional", "interaction_callback", ["interaction_id", "interaction_token"], global_exempt=True),
    Route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", "get_original_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", "update_original_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", "delete_original_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "get_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "update_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "delete_webhook_message", "optional", "webhook", ["webhook_id", "webhook_token"]),
    Route("POST", "/webhooks/{webhook_id}/{webhook_token}", "execute_webhook", "optional", "webhook", ["webhook_id", "webhook_token"]),
]

SNOWFLAKE_PARAMS = {"channel_id", "message_id", "application_id", "guild_id", "interaction_id", "webhook_id"}


def match_route(method, path):
    """Return (route, params) or (None, allowed_methods)."""
    allowed = []
    for r in ROUTES:
        m = r.regex.match(path)
        if m:
            if r.method == method:
                return r, m.groupdict()
            allowed.append(r.method)
    return None, allowed


# ---------------------------------------------------------------- multipart
def parse_multipart(body, ctype):
    m = re.search(r'boundary=(?:"([^"]+)"|([^;\s]+))', ctype or "")
    if not m:
        raise ValueError("multipart/form-data without boundary")
    boundary = (m.group(1) or m.group(2)).encode("latin-1")
    delim = b"--" + boundary
    if not body.startswith(delim) and (b"\r\n" + delim) not in body:
        raise ValueError("boundary not found in body")
    chunks = body.split(b"\r\n" + delim) if not body.startswith(delim) else (b"\r\n" + body).split(b"\r\n" + delim)
    parts = []
    closed = False
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            closed = True
            break
        if chunk.startswith(b"\r\n"):
            chunk = chunk[2:]
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("malformed part headers")
        headers = {}
        for line in head.split(b"\r\n"):
            if b":" in line:
                k, v = line.split(b":", 1)
                headers[k.decode("latin-1").strip().lower()] = v.decode("utf-8", "replace").strip()
        cd = headers.get("content-disposition", "")
        params = {}
        for item in cd.split(";")[1:]:
            if "=" in item:
                k, v = item.split("=", 1)
                k = k.strip().lower()
                v = v.strip()
                if v.startswith('"') and v.endswith('"'):
                    v = v[1:-1].replace('\\"', '"')
                if k.endswith("*") and "''" in v:
                    k = k[:-1]
                    v = urllib.parse.unquote(v.split("''", 1)[1])
                params[k] = v
        parts.append({"name": params.get("name"), "filename": params.get("filename"),
                      "content_type": headers.get("content-type"), "data": data})
    if not closed:
        raise ValueError("missing closing boundary")
    return parts


# ---------------------------------------------------------------- state
class Session:
    def __init__(self, sid, intents, shard, clock_now):
        self.id = sid
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.buffer = []  # list of payload dicts (op 0)
        self.conn = None
        self.invalidated = False
        self.disconnected_at = None
        self.created = clock_now
        self.resumes = 0
        self.presence = None


class GatewayConn:
    _ids = 0

    def __init__(self, server, sock, kind):
        GatewayConn._ids += 1
        self.id = GatewayConn._ids
        self.server = server
        self.sock = sock
        self.wsock = sock.dup()  # writer's handle: own timeout, same connection
        self.wsock.settimeout(10.0)
        self.kind = kind  # "gateway" | "resume"
        self.q = collections.deque()
        self.qcv = threading.Condition()
        self.session = None
        self.open = True
        self.close_sent = None  # (code, reason)
        self.close_sent_at = None
        self.kill_at = None
        self.last_heartbeat = time.monotonic()
        self.sends = collections.deque()
        self.opened_at = time.monotonic()
        self.drop_acks = False
        self.writer = threading.Thread(target=self._writer, daemon=True)
        self.writer.start()

    def _writer(self):
        while True:
            with self.qcv:
                while not self.q:
                    self.qcv.wait()
                item = self.q.popleft()
            if item is None:
                return
            try:
                if item == "KILL":
                    try:
                        self.sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                self.wsock.sendall(item)
            except OSError:
                self.open = False
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return

    def push(self, item):
        with self.qcv:
            self.q.append(item)
            self.qcv.notify()


class FakeDiscord:
    def __init__(self, args):
        self.args = args
        self.cond = threading.Condition(threading.RLock())
        self.clock = Clock(args.time_scale)
        self.ids = Snowflakes(self.clock)
        self.token = args.token
        self.bot_id = args.bot_user_id
        self.app_id = args.app_id or args.bot_user_id
        self.port = None
        self.validator = None
        if args.spec:
            with open(args.spec, "rb") as f:
                self.validator = jsonschema_lite.SchemaValidator(json.load(f))
            self.spec_paths = []  # (regex, {METHODS})
            for p, item in self.validator.spec.get("paths", {}).items():
                rx = re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(p))
                methods = {m.upper() for m in item if m.lower() in ("get", "post", "put", "patch", "delete")}
                self.spec_paths.append((re.compile("^" + rx + "$"), methods))
        else:
            self.spec_paths = []
        self.cdn_secret = secrets.token_bytes(16)
        self.transcript_file = open(args.transcript, "a", encoding="utf-8") if args.transcript else None
        self.reset_all(initial=True)

    # ------------------------------------------------------------ reset
    def reset_all(self, initial=False):
        with self.cond:
            if not initial:
                for c in list(self.conns.values()):
                    self._kill_conn(c, "reset")
                self.clock.offset = 0.0
                self.clock.set_scale(self.args.time_scale)
            self.config = copy.deepcopy(DEFAULT_CONFIG)
            self.config["heartbeat_interval_ms"] = self.args.heartbeat_ms
            self.route_limits = copy.deepcopy(DEFAULT_ROUTE_LIMITS)
            self.users = {}
            self.guilds = {}
            self.channels = {}
            self.messages = {}  # channel_id -> OrderedDict(id -> message obj)
            self.msg_channel = {}  # message id -> channel id
            self.meta = {}  # message id -> dict
            self.blobs = {}  # attachment id -> (filename, ctype, bytes)
            self.dm_by_user = {}
            self.nonces = {}
            self.interactions = {}
            self.tokens = {}
            self.commands = {"global": []}
            self.reactions = []
            self.typing_last = {}
            self.sessions = {}
            self.conns = {} if initial else self.conns
            self.identify_times = collections.deque()
            self.identifies_total = 0
            self.storms = []
            self.faults = []
            self.buckets = {}
            self.global_window = [0.0, 0]
            # Retry windows a 429 announced: (bucket, major) or "global" -> {until, answered, scope}.
            self.holds = {}
            self.old_edit_buckets = {}
            self.clear_records()
            self.users[self.bot_id] = {"id": self.bot_id, "username": self.args.bot_name,
                                       "discriminator": "4242", "global_name": None, "avatar": None,
                                       "bot": True, "public_flags": 0}
            for g in self.args.guild or []:
                self.add_guild(g)
            for spec in self.args.channel or []:
                parts = spec.split(":")
                cid = parts[0]
                name = parts[1] if len(parts) > 1 and parts[1] else "channel-" + cid[-4:]
                gid = parts[2] if len(parts) > 2 and parts[2] else (self.args.guild[0] if self.args.guild else None)
                if gid is None:
                    raise SystemExit("--channel %s needs a guild (no --guild given)" % spec)
                self.add_channel({"id": cid, "name": name, "guild_id": gid}, emit=False)
            for spec in self.args.user or []:
                uid, _, name = spec.partition(":")
                self.add_user({"id": uid, "username": name or "user" + uid[-4:]})
            self.cond.notify_all()

    def clear_records(self):
        with self.cond:
            self.events = []
            self.human_lines = []
            self.violations = []
            self.presences = []
            self.stats = collections.Counter()
            self.invalid_times = collections.deque()
            self.cond.notify_all()

    # ------------------------------------------------------------ records
    def record(self, _kind, **fields):
        with self.cond:
            ev = {"i": len(self.events), "kind": _kind, "time": time.time(), "clock": self.clock.now()}
            ev.update(fields)
            self.events.append(ev)
            self.cond.notify_all()
            return ev

    def human(self, line):
        with self.cond:
            self.human_lines.append(line)
            self.record("human", line=line)
            if self.transcript_file:
                self.transcript_file.write(line + "\n")
                self.transcript_file.flush()

    def violation(self, kind, detail, severity="error", req=None, **extra):
        with self.cond:
            if req is not None:
                req["violated"] = True
            v = {"kind": kind, "detail": detail, "severity": severity, "time": time.time()}
            v.update(extra)
            self.violations.append(v)
            self.record("violation", vkind=kind, detail=detail, severity=severity, **extra)
            self.human("[violation] %s: %s" % (kind, detail))
            return v

    @property
    def cursor(self):
        return len(self.events)

    # ------------------------------------------------------------ model
    def user_public(self, uid):
        u = self.users.get(uid) or {"id": uid, "username": "user" + uid[-4:]}
        out = {"id": u["id"], "username": u.get("username"), "avatar": u.get("avatar"),
               "discriminator": u.get("discriminator", "0"), "public_flags": u.get("public_flags", 0),
               "flags": u.get("public_flags", 0), "global_name": u.get("global_name"),
               "banner": None, "accent_color": None, "avatar_decoration_data": None,
               "collectibles": None, "display_name_styles": None, "primary_guild": None,
               "banner_color": None, "clan": None}
        if u.get("bot"):
            out["bot"] = True
        return out

    def add_user(self, spec):
        uid = str(spec.get("id") or self.ids.next())
        if not is_snowflake(uid):
            raise ValueError("user id must be a snowflake string")
        u = self.users.get(uid, {"id": uid, "discriminator": "0", "avatar": None, "public_flags": 0,
                                 "global_name": None})
        for k in ("username", "global_name", "bot", "dms_closed", "avatar"):
            if k in spec:
                u[k] = spec[k]
        u.setdefault("username", "user" + uid[-4:])
        self.users[uid] = u
        return u

    def add_guild(self, gid, name=None):
        gid = str(gid)
        if gid in self.guilds:
            return self.guilds[gid]
        g = {"id": gid, "name": name or "Guild " + gid[-4:], "joined_at": iso(self.clock.now()),
             "owner_id": None}
        self.guilds[gid] = g
        return g

    def add_channel(self, spec, emit=True):
        cid = str(spec.get("id") or self.ids.next())
        if not is_snowflake(cid):
            raise ValueError("channel id must be a snowflake string")
        ctype = int(spec.get("type", 0))
        if ctype == 1:
            raise ValueError("create DM channels with dm_user_id (POST /_control/dm)")
        gid = str(spec.get("guild_id") or (next(iter(self.guilds)) if self.guilds else ""))
        if not gid:
            raise ValueError("guild_id required (no guilds configured)")
        if gid not in self.guilds:
            self.add_guild(gid)
        existing = self.channels.get(cid)
        ch = existing or {"id": cid, "type": ctype, "guild_id": gid, "name": spec.get("name") or "channel-" + cid[-4:],
                          "position": len([c for c in self.channels.values() if c.get("guild_id") == gid]),
                          "permission_overwrites": [], "parent_id": spec.get("parent_id"), "nsfw": False,
                          "topic": None, "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}
        if existing and spec.get("name"):
            ch["name"] = spec["name"]
        ch.setdefault("_perm", {"view": True, "send": True})
        for k in ("view", "send"):
            if k in (spec.get("bot_permissions") or {}):
                ch["_perm"][k] = bool(spec["bot_permissions"][k])
        self.channels[cid] = ch
        self.messages.setdefault(cid, collections.OrderedDict())
        if emit and not existing:
            self.dispatch("CHANNEL_CREATE", self.channel_public(ch))
        return ch

    def get_dm(self, uid, create=True):
        cid = self.dm_by_user.get(uid)
        if cid:
            return self.channels[cid]
        if not create:
            return None
        cid = self.ids.next()
        ch = {"id": cid, "type": 1, "last_message_id": None, "flags": 0, "recipients": [uid],
              "_perm": {"view": True, "send": True}}
        self.channels[cid] = ch
        self.messages[cid] = collections.OrderedDict()
        self.dm_by_user[uid] = cid
        return ch

    def channel_public(self, ch):
        out = copy.deepcopy({k: v for k, v in ch.items() if not k.startswith("_")})
        if ch["type"] == 1:
            out["recipients"] = [self.user_public(u) for u in ch["recipients"]]
        return out

    def chan_label(self, cid):
        ch = self.channels.get(cid)
        if not ch:
            return "#" + str(cid)
        if ch["type"] == 1:
            u = self.users.get(ch["recipients"][0], {})
            return "@%s DM" % u.get("username", ch["recipients"][0])
        if ch["type"] in (10, 11, 12):
            parent = self.channels.get(ch.get("parent_id"), {})
            return "#%s > %s" % (parent.get("name", ch.get("parent_id")), ch.get("name"))
        return "#" + ch.get("name", cid)

    def uname(self, uid):
        if uid == self.bot_id:
            return "bot"
        return self.users.get(uid, {}).get("username", uid)

    def member_public(self, gid, uid):
        g = self.guilds.get(gid, {})
        return {"roles": [], "premium_since": None, "pending": False, "nick": None, "mute": False,
                "joined_at": g.get("joined_at") or iso(self.clock.now()), "flags": 0, "deaf": False,
                "communication_disabled_until": None, "banner": None, "avatar": None}

    def guild_create_payload(self, gid):
        g = self.guilds[gid]
        chans = [self.channel_public(c) for c in self.channels.values()
                 if c.get("guild_id") == gid and c["type"] not in (10, 11, 12)]
        threads = [self.channel_public(c) for c in self.channels.values()
                   if c.get("guild_id") == gid and c["type"] in (10, 11, 12)
                   and not c.get("thread_metadata", {}).get("archived")]
        bot_member = dict(self.member_public(gid, self.bot_id), user=self.user_public(self.bot_id))
        return {
            "id": gid, "name": g["name"], "icon": None, "splash": None, "discovery_splash": None,
            "banner": None, "description": None, "owner_id": g.get("owner_id") or "1",
            "region": "deprecated", "afk_channel_id": None, "afk_timeout": 300,
            "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "premium_tier": 0,
            "premium_subscription_count": 0, "preferred_locale": "en-US", "nsfw_level": 0,
            "nsfw": False, "features": [], "roles": [{
                "id": gid, "name": "@everyone", "permissions": "2248473465835073", "position": 0,
                "color": 0, "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
                "hoist": False, "managed": False, "mentionable": False, "icon": None,
                "unicode_emoji": None, "flags": 0}],
            "emojis": [], "stickers": [], "application_id": None, "system_channel_id": None,
            "system_channel_flags": 0, "rules_channel_id": None, "public_updates_channel_id": None,
            "safety_alerts_channel_id": None, "vanity_url_code": None, "max_members": 25000000,
            "max_video_channel_users": 25, "max_stage_video_channel_users": 50,
            "premium_progress_bar_enabled": False, "hub_type": None, "incidents_data": None,
            "joined_at": g["joined_at"], "large": False, "unavailable": False, "lazy": True,
            "member_count": 1 + len([u for u in self.users if u != self.bot_id]),
            "members": [bot_member], "channels": chans, "threads": threads, "presences": [],
            "voice_states": [], "stage_instances": [], "guild_scheduled_events": [],
            "soundboard_sounds": [], "embedded_activities": [], "activity_instances": [],
            "version": int(self.clock.now() * 1000), "home_header": None, "latest_onboarding_question_id": None,
        }

    # ------------------------------------------------------------ messages
    def store_message(self, msg, meta):
        cid = msg["channel_id"]
        self.messages.setdefault(cid, collections.OrderedDict())[msg["id"]] = msg
        self.msg_channel[msg["id"]] = cid
        meta.setdefault("history", [])
        meta["created_clock"] = self.clock.now()
        meta["cursor"] = self.cursor
        meta["changed_cursor"] = self.cursor
        meta.setdefault("deleted", False)
        meta.setdefault("edit_count", 0)
        self.meta[msg["id"]] = meta
        ch = self.channels.get(cid)
        if ch is not None:
            ch["last_message_id"] = msg["id"]
            if ch["type"] in (10, 11, 12):
                ch["message_count"] = ch.get("message_count", 0) + 1
                ch["total_message_sent"] = ch.get("total_message_sent", 0) + 1

    def find_message(self, cid, mid):
        m = self.messages.get(cid, {}).get(mid)
        if m is None or self.meta.get(mid, {}).get("deleted"):
            return None
        return m

    def mentions_for(self, content, allowed, default_parse):
        ids = []
        for m in re.finditer(r"<@!?(\d+)>", content or ""):
            uid = m.group(1)
            if uid not in ids:
                ids.append(uid)
        parse = default_parse
        users_allowed = None
        if isinstance(allowed, dict):
            parse = allowed.get("parse") or []
            users_allowed = allowed.get("users")
        out = []
        for uid in ids:
            if uid not in self.users:
                continue
            if "users" in parse or (users_allowed and uid in [str(u) for u in users_allowed]):
                out.append(self.user_public(uid))
        everyone = "everyone" in parse and ("@everyone" in (content or "") or "@here" in (content or ""))
        return out, everyone

    def message_event_payload(self, msg):
        """Gateway form: message + guild_id/member/channel_type extras."""
        d = copy.deepcopy(msg)
        ch = self.channels.get(msg["channel_id"], {})
        d["channel_type"] = ch.get("type", 0)
        gid = ch.get("guild_id")
        meta = self.meta.get(msg["id"], {})
        if gid:
            d["guild_id"] = gid
            if not msg.get("webhook_id") and not (msg.get("flags", 0) & MSG_FLAG_EPHEMERAL):
                d["member"] = self.member_public(gid, msg["author"]["id"])
            for u in d.get("mentions", []):
                u["member"] = self.member_public(gid, u["id"])
        return d

    # ------------------------------------------------------------ gateway dispatch
    def session_alive(self, s):
        if s.invalidated:
            return False
        if s.conn is not None:
            return True
        return s.disconnected_at is not None and \
            time.monotonic() - s.disconnected_at < self.config["resume_window_s"]

    def dispatch(self, t, d, only_session=None):
        """Send a dispatch to every live session, respecting intents and shards.
        Sessions without a connection buffer it for RESUME. Returns session ids."""
        delivered = []
        with self.cond:
            for s in list(self.sessions.values()):
                if only_session and s.id != only_session:
                    continue
                if not self.session_alive(s):
                    continue
                dd = self.filter_for_session(s, t, d)
                if dd is None:
                    continue
                s.seq += 1
                payload = {"op": 0, "t": t, "s": s.seq, "d": dd}
                s.buffer.append(payload)
                if s.conn is not None and s.conn.open and s.conn.close_sent is None:
                    self.ws_send(s.conn, payload)
                delivered.append(s.id)
        return delivered

    def filter_for_session(self, s, t, d):
        it = s.intents
        gid = d.get("guild_id") if isinstance(d, dict) else None
        if t == "GUILD_CREATE":
            gid = d.get("id")
        # shard routing: guild events to (guild_id >> 22) % num_shards, DMs to shard 0
        if s.shard:
            sid, num = s.shard
            if gid:
                if (int(gid) >> 22) % num != sid:
                    return None
            elif t not in ("READY", "RESUMED") and sid != 0:
                return None
        if t in ("MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE"):
            need = I_GUILD_MESSAGES if gid else I_DMS
            if not it & need:
                return None
            if t != "MESSAGE_DELETE" and not it & I_MESSAGE_CONTENT:
                if gid and not self._content_exempt(d):
                    d = copy.deepcopy(d)
                    d["content"] = ""
                    d["embeds"] = []
                    d["attachments"] = []
                    d["components"] = []
                    d.pop("poll", None)
            return d
        if t in ("GUILD_CREATE", "CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE",
                 "THREAD_CREATE", "THREAD_UPDATE", "THREAD_DELETE", "THREAD_LIST_SYNC"):
            return d if it & I_GUILDS else None
        if t == "TYPING_START":
            return d if it & (I_GUILD_TYPING if gid else I_DM_TYPING) else None
        if t in ("MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE"):
            return d if it & (I_GUILD_REACTIONS if gid else I_DM_REACTIONS) else None
        return d  # READY, RESUMED, INTERACTION_CREATE, others: no intent needed

    def _content_exempt(self, d):
        if d.get("author", {}).get("id") == self.bot_id:
            return True
        if any(u.get("id") == self.bot_id for u in d.get("mentions", [])):
            return True
        return False

    def ws_send(self, conn, payload, record=True):
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        if record:
            self.record("ws", dir="out", conn=conn.id, session=conn.session.id if conn.session else None,
                        op=payload.get("op"), t=payload.get("t"), s=payload.get("s"), text=text)
        conn.push(ws_server.encode_frame(ws_server.OP_TEXT, text.encode("utf-8")))

    def ws_close(self, conn, code, reason=None, initiator="server"):
        with self.cond:
            if conn.close_sent is not None or not conn.open:
                return
            reason = CLOSE_REASONS.get(code, "") if reason is None else reason
            conn.close_sent = (code, reason)
            conn.close_sent_at = time.monotonic()
            conn.push(ws_server.encode_frame(ws_server.OP_CLOSE, ws_server.close_payload(code, reason)))
            self.record("ws_close_sent", conn=conn.id, code=code, reason=reason,
                        session=conn.session.id if conn.session else None)
            self.human("[gateway] server closed connection %d with %s %s" % (conn.id, code, reason))
            s = conn.session
            if s is not None and code in NON_RESUMABLE_CLOSE:
                s.invalidated = True

    def _kill_conn(self, conn, why):
        self.record("ws_kill", conn=conn.id, why=why)
        conn.open = False
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.push("KILL")

    # ------------------------------------------------------------ REST entry
    def handle_rest(self, method, raw_path, query, headers, body):
        """Returns (status, headers dict, body bytes)."""
        with self.cond:
            self.stats["requests"] += 1
        req = {"method": method, "path": raw_path, "query": query, "headers": headers, "body": body,
               "arrived": time.monotonic()}
        status, rh, rbody = self._rest(req)
        if status in (401, 403) or (status == 429 and rh.get("X-RateLimit-Scope") != "shared"):
            with self.cond:
                self.stats["invalid_requests"] += 1
                now = time.monotonic()
                self.invalid_times.append(now)
                while self.invalid_times and now - self.invalid_times[0] > self.config["invalid_request_window_s"]:
                    self.invalid_times.popleft()
                if len(self.invalid_times) == self.config["invalid_request_limit"]:
                    self.violation("invalid_request_limit",
                                   "%d invalid (401/403/429) requests within %ss - Discord would ban the IP"
                                   % (len(self.invalid_times), self.config["invalid_request_window_s"]))
        if status == 429:
            with self.cond:
                self.stats["rate_limited_429"] += 1
                self.stats["rate_limited_429_" + rh.get("X-RateLimit-Scope", "user")] += 1
        with self.cond:
            self.stats["status_%d" % status] += 1
        if isinstance(rbody, (dict, list)):
            rb = json.dumps(rbody).encode("utf-8")
            rh.setdefault("Content-Type", "application/json")
        elif rbody is None:
            rb = b""
        else:
            rb = rbody if isinstance(rbody, bytes) else str(rbody).encode("utf-8")
        self.record("http", method=method, path=raw_path, query=query,
                    headers=redact_headers(headers), request_body=describe_body(headers, body),
                    status=status, response_headers=rh, response_body=rbody if isinstance(rbody, (dict, list)) else
                    (rb[:2000].decode("utf-8", "replace") if rb else None))
        if req.get("hold") is not None:
            with self.cond:
                # From now on the client knows it has to wait (the window's first 429 counts).
                if req["hold"]["answered"] is None:
                    req["hold"]["answered"] = time.monotonic()
        return status, rh, rb

    def _rest(self, req):
        method, raw_path, headers = req["method"], req["path"], req["headers"]
        if not raw_path.startswith(API_PREFIX + "/"):
            self.violation("unversioned_api_path", "%s %s does not use %s" % (method, raw_path, API_PREFIX))
            return 404, {}, {"message": "404: Not Found", "code": 0}
        path = raw_path[len(API_PREFIX):]
        ua = headers.get("User-Agent") or ""
        if self.config["enforce_user_agent"] and not ua.startswith("DiscordBot ("):
            self.violation("user_agent", "%s %s sent User-Agent %r (must start with 'DiscordBot (')"
                           % (method, path, ua))
            return 400, {}, {"message": "400: Bad Request (User-Agent must be 'DiscordBot ($url, $version)')", "code": 0}
        route, params = match_route(method, path)
        if route is None:
            in_spec = any(rx.match(path) and method in ms for rx, ms in self.spec_paths)
            if params and not in_spec:
                self.violation("method_not_allowed", "%s %s" % (method, path), severity="warning")
                return 405, {"Allow": ", ".join(params)}, {"message": "405: Method Not Allowed", "code": 0}
            if in_spec:
                self.violation("route_not_emulated", "%s %s exists in Discord but is not emulated by the fake"
                               % (method, path), severity="warning")
            else:
                self.violation("unknown_route", "%s %s is not a Discord API route" % (method, path),
                               severity="warning")
            return 404, {}, {"message": "404: Not Found", "code": 0}
        for k, v in params.items():
            if k in SNOWFLAKE_PARAMS and not is_snowflake(v):
                return 400, {}, form_error([((k,), "NUMBER_TYPE_COERCE", 'Value "%s" is not snowflake.' % v)]).body
        # --- auth
        auth = headers.get("Authorization")
        if route.auth in ("bot", "optional") and (auth is not None or route.auth == "bot"):
            if auth != "Bot " + self.token:
                if auth and auth.strip() == self.token:
                    self.violation("auth", "Authorization header lacks the 'Bot ' prefix")
                return 401, {}, {"message": "401: Unauthorized", "code": 0}
        # --- faults (before processing)
        fault = self._take_fault(route, params, when="before")
        if fault:
            return self._fault_response(fault)
        # --- global rate limit
        if not route.global_exempt:
            g = self._global_check(route, params, req)
            if g:
                return g
        # --- per-route bucket
        rl_headers, limited = self._bucket(route, params, req)
        if limited:
            return limited
        # --- parse + validate body
        payload = None
        try:
            payload, files = self.parse_body(req, route)
            if self.validator and self.config["schema_validation"] and payload is not None:
                self.validate_schema(route, payload, req)
            handler = getattr(self, "r_" + route.name)
            with self.cond:
                status, body = handler(req, params, payload, files)
                after = self._take_fault(route, params, when="after")
                self._log_it_call(route, params, status, payload, body)
            if after:
                st, h, b = self._fault_response(after)
                h.update(rl_headers)
                return st, h, b
            return status, dict(rl_headers), body
        except ApiError as e:
            if e.status in (400, 413) and not req.get("violated"):
                self.violation("rejected_request", "%s %s -> %d %s %s" % (
                    method, path, e.status, e.body.get("code"),
                    json.dumps(e.body.get("errors") or e.body.get("message"))[:400]),
                    severity="error" if e.body.get("code") in (50035, 50006, 50109, 40005) else "warning")
            self._log_it_call(route, params, e.status, payload, e.body)
            h = dict(rl_headers)
            h.update(e.headers)
            return e.status, h, e.body

    def _log_it_call(self, route, params, status, payload, resp):
        if route.group not in ("interaction_callback", "webhook"):
            return
        with self.cond:
            iid = params.get("interaction_id") or self.tokens.get(params.get("webhook_token", ""))
            it = self.interactions.get(iid or "")
            if it is None:
                return
            it["calls"].append({"route": route.key, "status": status, "body": payload,
                                "response_code": resp.get("code") if isinstance(resp, dict) and status >= 400 else None,
                                "message_id": resp.get("id") if isinstance(resp, dict) and status < 400 else None,
                                "age_s": round(self.clock.now() - it["created_clock"], 3)})

    # ------------------------------------------------------------ body parsing
    def parse_body(self, req, route):
        body = req["body"]
        ctype = (req["headers"].get("Content-Type") or "").strip()
        base = ctype.split(";")[0].strip().lower()
        files = []
        if len(body) > self.config["max_request_size"]:
            raise ApiError(413, 40005, "Request entity too large")
        if not body:
            return None, files
        if base == "application/json":
            try:
                return json.loads(body.decode("utf-8")), files
            except (UnicodeDecodeError, ValueError):
                self.violation("invalid_json", "%s %s body is not valid JSON" % (req["method"], req["path"]), req=req)
                raise ApiError(400, 50109, "The request body contains invalid JSON.")
        if base == "multipart/form-data":
            try:
                parts = parse_multipart(body, ctype)
            except ValueError as e:
                self.violation("multipart", "%s %s: %s" % (req["method"], req["path"], e), req=req)
                raise form_error([((), "MULTIPART_INVALID", "Invalid multipart body: %s" % e)])
            payload = {}
            form_fields = False
            for p in parts:
                if p["filename"] is not None:
                    m = re.fullmatch(r"files\[(\d+)\]", p["name"] or "")
                    if not m:
                        self.violation("multipart", "file part named %r (documented name is files[n])" % p["name"],
                                       severity="warning")
                    files.append({"index": int(m.group(1)) if m else len(files), "field": p["name"],
                                  "filename": p["filename"], "content_type": p["content_type"], "data": p["data"]})
                elif p["name"] == "payload_json":
                    try:
                        pj = json.loads(p["data"].decode("utf-8"))
                    except (UnicodeDecodeError, ValueError):
                        self.violation("invalid_json", "payload_json is not valid JSON", req=req)
                        raise ApiError(400, 50109, "The request body contains invalid JSON.")
                    if not isinstance(pj, dict):
                        raise form_error([((), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")])
                    payload.update(pj)
                else:
                    form_fields = True
                    payload[p["name"]] = p["data"].decode("utf-8", "replace")
            req["form"] = form_fields
            return payload, files
        if base == "application/x-www-form-urlencoded":
            qs = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
            if "payload_json" in qs:
                try:
                    return json.loads(qs["payload_json"][0]), files
                except ValueError:
                    raise ApiError(400, 50109, "The request body contains invalid JSON.")
            req["form"] = True
            return {k: v[0] for k, v in qs.items()}, files
        self.violation("content_type", "%s %s sent Content-Type %r" % (req["method"], req["path"], ctype), req=req)
        raise form_error([((), "CONTENT_TYPE_INVALID",
                           "Expected \"Content-Type\" header to be one of {'application/json', "
                           "'application/x-www-form-urlencoded', 'multipart/form-data'}.")])

    def validate_schema(self, route, payload, req):
        schema = self.validator.request_schema(route.op_id)
        if schema is None:
            return
        errs = self.validator.validate(payload, schema, form=bool(req.get("form")))
        if errs:
            # Report the documented semantic rules in the same 50035 response
            # (Discord reports all field errors at once).
            sem = []
            if route.name in ("create_message", "update_message", "execute_webhook",
                              "update_original_webhook_message", "update_webhook_message"):
                sem = self.check_message_semantics(payload, [], is_create=False, collect=True)
            elif route.name == "create_interaction_response" and isinstance(payload, dict) \
                    and payload.get("type") in (4, 7):
                sem = self.check_message_semantics(payload.get("data"), [], path=("data",),
                                                   is_create=False, collect=True)
            sem_keys = {(e[0], e[1]) for e in sem}
            errs = [e for e in errs if (e[0], e[1]) not in sem_keys] + sem
            self.violation("schema", "%s %s: %s" % (req["method"], req["path"],
                                                    json.dumps(jsonschema_lite.error_tree(errs))[:500]),
                           operation=route.op_id, req=req)
            raise form_error(errs)

    # ------------------------------------------------------------ rate limits
    def _bucket_hash(self, group):
        return hashlib.sha1(("fake-discord:" + group).encode()).hexdigest()[:32]

    def _major(self, route, params):
        return ":".join(params.get(k, "") for k in route.major)

    def _storm_for(self, route, params, global_only=False):
        now = time.monotonic()
        for st in list(self.storms):
            if (st.get("until") is not None and now >= st["until"]) or st.get("remaining") == 0:
                self.storms.remove(st)
                continue
            if global_only != (st["scope"] == "global"):
                continue
            r = st.get("route") or "*"
            if r not in ("*", route.key, route.group, route.name):
                continue
            if st.get("major") and st["major"] not in self._major(route, params).split(":"):
                continue
            if st.get("remaining") is not None:
                st["remaining"] -= 1
            return st
        return None

    def _hold_left(self, key, req, route):
        """Seconds left in the retry window an earlier 429 announced for `key`, or None. Like
        Discord, the bucket (every non-exempt route, for a global 429) stays limited until then;
        a request that arrives well after the client was told to wait is recorded as ignoring
        retry_after."""
        h = self.holds.get(key)
        if h is None:
            return None
        now = time.monotonic()
        if now >= h["until"]:
            del self.holds[key]
            return None
        arrived = req["arrived"]
        if h["answered"] is not None and h["answered"] + RETRY_REACTION_S < arrived < h["until"] - RETRY_SLACK_S:
            self.violation("retry_after_ignored", "%s %s arrived %.3fs after a 429 (%s) that said to wait %.3fs"
                           % (route.method, route.template, arrived - h["answered"], h["scope"],
                              h["until"] - h["answered"]), req=req)
        req["hold"] = h
        return h["until"] - now

    def _hold(self, key, ra, scope, req):
        now = time.monotonic()
        h = self.holds.get(key)
        if h is None or h["until"] <= now:
            h = self.holds[key] = {"until": now + ra, "answered": None, "scope": scope}
        else:
            h["until"] = max(h["until"], now + ra)
        req["hold"] = h

    def _global_check(self, route, params, req):
        with self.cond:
            held = self._hold_left("global", req, route)
            st = None if held is not None else self._storm_for(route, params, global_only=True)
            if held is not None:
                ra = held
                self.human("[rest] 429 global %s %s (inside an announced retry window, %.3fs left)"
                           % (route.method, route.template, ra))
            elif st:
                ra = float(st.get("retry_after", 1.0))
            else:
                now = time.monotonic()
                win = self.global_window
                if now - win[0] >= self.config["global_window_s"]:
                    win[0], win[1] = now, 0
                if win[1] >= self.config["global_limit"]:
                    ra = max(0.001, self.config["global_window_s"] - (now - win[0]))
                else:
                    win[1] += 1
                    return None
            if held is None:
                self.human("[rest] 429 global %s %s (retry_after %.3fs)" % (route.method, route.template, ra))
                self._hold("global", ra, "global", req)
            body = {"message": "You are being rate limited.", "retry_after": round(ra, 3), "global": True}
            return 429, {"Retry-After": str(max(1, int(-(-ra // 1)))), "X-RateLimit-Global": "true",
                         "X-RateLimit-Scope": "global"}, body

    def _bucket(self, route, params, req):
        with self.cond:
            group = route.group
            limit, window = self.route_limits.get(group, self.route_limits["default"])
            bucket_name = group if group != "default" else "default:" + route.key
            key = (bucket_name, self._major(route, params))
            now = time.monotonic()
            b = self.buckets.get(key)
            if b is None or now >= b["reset_at"]:
                b = self.buckets[key] = {"remaining": limit, "reset_at": now + window, "limit": limit}
            reset_after = max(0.0, b["reset_at"] - now)
            held = self._hold_left(key, req, route)
            st = None if held is not None else self._storm_for(route, params)

            def hdrs(remaining, ra):
                return {"X-RateLimit-Limit": str(b["limit"]), "X-RateLimit-Remaining": str(remaining),
                        "X-RateLimit-Reset": "%.3f" % (time.time() + ra),
                        "X-RateLimit-Reset-After": "%.3f" % ra,
                        "X-RateLimit-Bucket": self._bucket_hash(bucket_name)}
            if held is not None:
                ra = held
                h = hdrs(0, ra)
                h.update({"Retry-After": str(max(1, int(-(-ra // 1)))), "X-RateLimit-Scope": self.holds[key]["scope"]})
                self.human("[rest] 429 %s %s (inside an announced retry window, %.3fs left)" % (route.method, route.template, ra))
                return None, (429, h, {"message": "You are being rate limited.", "retry_after": round(ra, 3), "global": False})
            if st:
                ra = float(st.get("retry_after", 1.0))
                h = hdrs(0, ra)
                h.update({"Retry-After": str(max(1, int(-(-ra // 1)))), "X-RateLimit-Scope": st["scope"]})
                self.human("[rest] 429 (scripted, %s) %s %s (retry_after %.3fs)" % (st["scope"], route.method, route.template, ra))
                self._hold(key, ra, st["scope"], req)
                return None, (429, h, {"message": "You are being rate limited.", "retry_after": round(ra, 3), "global": False})
            if b["remaining"] <= 0:
                ra = max(0.001, reset_after)
                h = hdrs(0, ra)
                h.update({"Retry-After": str(max(1, int(-(-ra // 1)))), "X-RateLimit-Scope": "user"})
                self.human("[rest] 429 %s %s (bucket %s exhausted, retry_after %.3fs)" % (route.method, route.template, group, ra))
                self._hold(key, ra, "user", req)
                return None, (429, h, {"message": "You are being rate limited.", "retry_after": round(ra, 3), "global": False})
            b["remaining"] -= 1
            return hdrs(b["remaining"], reset_after), None

    def _take_fault(self, route, params, when):
        with self.cond:
            now = time.monotonic()
            for f in list(self.faults):
                if (f.get("until") is not None and now >= f["until"]) or f.get("remaining") == 0:
                    self.faults.remove(f)
                    continue
                if (f.get("apply") and when != "after") or (not f.get("apply") and when != "before"):
                    continue
                r = f.get("route") or "*"
                if r not in ("*", route.key, route.group, route.name):
                    continue
                if f.get("remaining") is not None:
                    f["remaining"] -= 1
                return f
        return None

    def _fault_response(self, f):
        status = int(f.get("status", 502))
        self.human("[rest] injected %d" % status)
        if "body" in f:
            return status, {"Content-Type": "application/json"}, f["body"]
        if status == 502:
            return status, {"Content-Type": "text/html"}, (
                "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n"
                "</body>\r\n</html>\r\n")
        reasons = {500: "Internal Server Error", 503: "Service Unavailable", 504: "Gateway Timeout"}
        return status, {}, {"message": "%d: %s" % (status, reasons.get(status, "Error")), "code": 0}

    # ------------------------------------------------------------ message helpers
    def check_channel_write(self, cid, *, for_send=True):
        ch = self.channels.get(cid)
        if ch is None:
            raise unknown("channel")
        if not ch["_perm"]["view"]:
            raise ApiError(403, 50001, "Missing Access")
        if for_send and not ch["_perm"]["send"]:
            raise ApiError(403, 50013, "Missing Permissions")
        if for_send and ch["type"] == 1:
            u = self.users.get(ch["recipients"][0], {})
            if u.get("dms_closed"):
                raise ApiError(403, 50007, "Cannot send messages to this user")
        # discord-api.md: posting in a thread unarchives it (the table's "Post in thread"); an
        # edit or a delete there is an operation on an archived thread (50083, §7's codes).
        if not for_send and ch["type"] in (10, 11, 12) and ch.get("thread_metadata", {}).get("archived"):
            raise ApiError(400, 50083, "Thread is archived")
        return ch

    def check_message_semantics(self, p, files, *, path=(), existing=None, is_create=True,
                                content_max=None, collect=False):
        """Rules from the docs that the OpenAPI schema does not express.
        collect=True returns the 50035 error tuples instead of raising."""
        errs = []
        if not isinstance(p, dict):
            return errs if collect else None
        cfg = self.config
        cmax = content_max or cfg["content_max"]
        content = p.get("content")
        if isinstance(content, str) and content_len(content, cfg["content_length_unit"]) > cmax:
            errs.append((path + ("content",), "BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length." % cmax))
        flags = p.get("flags") if isinstance(p.get("flags"), int) else 0
        v2 = bool(flags & MSG_FLAG_COMPONENTS_V2) or bool(existing and existing.get("flags", 0) & MSG_FLAG_COMPONENTS_V2)
        if v2:
            for k in ("content", "embeds", "poll", "sticker_ids"):
                if p.get(k):
                    errs.append((path + (k,), "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                                 "The '%s' field cannot be used when using MessageFlags.IS_COMPONENTS_V2" % k))
        comps = p.get("components")
        custom_ids = {}
        if isinstance(comps, list) and not v2:
            if len(comps) > 5:
                errs.append((path + ("components",), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."))
            for i, row in enumerate(comps):
                if not isinstance(row, dict):
                    continue
                rp = path + ("components", i)
                if row.get("type") != 1:
                    errs.append((rp + ("type",), "COMPONENT_TYPE_INVALID",
                                 "Component type %s requires the IS_COMPONENTS_V2 flag; "
                                 "top-level components must be action rows (type 1)" % row.get("type")))
                    continue
                children = row.get("components") if isinstance(row.get("components"), list) else []
                if len(children) > 1 and any(isinstance(c, dict) and c.get("type") in (3, 5, 6, 7, 8) for c in children):
                    errs.append((rp + ("components",), "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                                 "The specified component exceeds the maximum width"))
                for j, c in enumerate(children):
                    if isinstance(c, dict):
                        self._check_interactive(c, rp + ("components", j), errs, custom_ids)
        elif isinstance(comps, list) and v2:
            def walk(c, cp):
                if not isinstance(c, dict):
                    return
                if c.get("type") in (2, 3, 5, 6, 7, 8):
                    self._check_interactive(c, cp, errs, custom_ids)
                for k in ("components",):
                    if isinstance(c.get(k), list):
                        for j, cc in enumerate(c[k]):
                            walk(cc, cp + (k, j))
                if isinstance(c.get("accessory"), dict):
                    walk(c["accessory"], cp + ("accessory",))
            for i, c in enumerate(comps):
                walk(c, path + ("components", i))
        embeds = p.get("embeds")
        if isinstance(embeds, list):
            total = 0
            for e in embeds:
                if not isinstance(e, dict):
                    continue
                for k in ("title", "description"):
                    total += len(e.get(k) or "")
                for f in e.get("fields") or []:
                    if isinstance(f, dict):
                        total += len(f.get("name") or "") + len(f.get("value") or "")
                total += len((e.get("footer") or {}).get("text") or "") + len((e.get("author") or {}).get("name") or "")
            if total > 6000:
                errs.append((path + ("embeds",), "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"))
        if len(files) > cfg["max_files"]:
            errs.append((path + ("files",), "BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length." % cfg["max_files"]))
        indexes = {f["index"] for f in files}
        existing_ids = {a["id"] for a in (existing or {}).get("attachments", [])}
        atts = p.get("attachments")
        if isinstance(atts, list):
            for i, a in enumerate(atts):
                if not isinstance(a, dict) or "id" not in a:
                    continue
                aid = str(a["id"])
                if aid in existing_ids:
                    continue
                if aid.isdigit() and int(aid) in indexes:
                    continue
                errs.append((path + ("attachments", i, "id"), "ATTACHMENT_NOT_FOUND",
                             "Unknown attachment id %s (no files[%s] part and not an existing attachment)" % (aid, aid)))
        if collect:
            return errs
        if errs:
            raise form_error(errs)
        for f in files:
            if len(f["data"]) > cfg["max_file_size"]:
                raise ApiError(413, 40005, "Request entity too large")
        if is_create:
            has = bool((content or "").strip()) or bool(p.get("embeds")) or bool(p.get("sticker_ids")) \
                or bool(comps) or bool(files) or bool(p.get("poll"))
            if not has:
                raise ApiError(400, 50006, "Cannot send an empty message")

    def _check_interactive(self, c, cp, errs, custom_ids):
        t = c.get("type")
        if t == 2:
            style = c.get("style")
            if style in (1, 2, 3, 4):
                if c.get("custom_id") is None:
                    errs.append((cp + ("custom_id",), "BASE_TYPE_REQUIRED", "This field is required"))
                if c.get("url") is not None:
                    errs.append((cp + ("url",), "BUTTON_COMPONENT_URL_NOT_ALLOWED", "A non-link button cannot have a url"))
            elif style == 5:
                if c.get("url") is None:
                    errs.append((cp + ("url",), "BASE_TYPE_REQUIRED", "This field is required"))
                if c.get("custom_id") is not None:
                    errs.append((cp + ("custom_id",), "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                                 "A link button cannot have a custom_id"))
            elif style == 6:
                if c.get("sku_id") is None:
                    errs.append((cp + ("sku_id",), "BASE_TYPE_REQUIRED", "This field is required"))
        elif t in (3, 5, 6, 7, 8):
            if c.get("custom_id") is None:
                errs.append((cp + ("custom_id",), "BASE_TYPE_REQUIRED", "This field is required"))
        cid = c.get("custom_id")
        if isinstance(cid, str):
            if cid in custom_ids:
                errs.append((cp + ("custom_id",), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"))
            custom_ids[cid] = cp

    def cdn_url(self, cid, aid, filename, proxy=False):
        issued = int(self.clock.now())
        ex = issued + 86400
        path = "/%s/%s/%s/%s" % ("media-attachments" if proxy else "attachments", cid, aid,
                                 urllib.parse.quote(filename))
        sig = hmac.new(self.cdn_secret, ("%s/%s/%s:%x:%x" % (cid, aid, filename, ex, issued)).encode(),
                       hashlib.sha256).hexdigest()
        return "http://127.0.0.1:%d%s?ex=%x&is=%x&hm=%s&" % (self.port, path, ex, issued, sig)

    def make_attachment(self, cid, data, filename, content_type, spec=None, ephemeral=False):
        aid = self.ids.next()
        spec = spec or {}
        filename = (spec.get("filename") or filename or "unknown").replace(" ", "_")
        if not content_type:
            content_type = mimetypes.guess_type(filename)[0]
        self.blobs[aid] = {"filename": filename, "content_type": content_type, "data": data, "channel_id": cid}
        att = {"id": aid, "filename": filename, "size": len(data),
               "url": self.cdn_url(cid, aid, filename), "proxy_url": self.cdn_url(cid, aid, filename, proxy=True)}
        if content_type:
            att["content_type"] = content_type
        for k in ("description", "title", "duration_secs", "waveform"):
            if spec.get(k) is not None:
                att[k] = spec[k]
        dims = image_dims(data)
        if dims:
            att["width"], att["height"] = dims
        att["content_scan_version"] = 0
        if ephemeral:
            att["ephemeral"] = True
        return att

    def new_attachments(self, cid, p, files, ephemeral=False):
        specs = {}
        for a in p.get("attachments") or []:
            if isinstance(a, dict) and str(a.get("id", "")).isdigit():
                specs[int(str(a["id"]))] = a
        out = []
        for f in sorted(files, key=lambda f: f["index"]):
            out.append(self.make_attachment(cid, f["data"], f["filename"], f["content_type"],
                                            specs.get(f["index"]), ephemeral))
        return out

    @staticmethod
    def _strip_nulls(x):
        if isinstance(x, dict):
            return {k: FakeDiscord._strip_nulls(v) for k, v in x.items() if v is not None}
        if isinstance(x, list):
            return [FakeDiscord._strip_nulls(v) for v in x]
        return x

    def norm_components(self, comps):
        comps = self._strip_nulls(copy.deepcopy(comps or []))
        used = set()

        def collect(c):
            if isinstance(c, dict):
                if isinstance(c.get("id"), int):
                    used.add(c["id"])
                for cc in c.get("components", []) or []:
                    collect(cc)
                if isinstance(c.get("accessory"), dict):
                    collect(c["accessory"])
        for c in comps:
            collect(c)
        counter = [0]

        def assign(c):
            if isinstance(c, dict):
                if not isinstance(c.get("id"), int):
                    counter[0] += 1
                    while counter[0] in used:
                        counter[0] += 1
                    c["id"] = counter[0]
                for cc in c.get("components", []) or []:
                    assign(cc)
                if isinstance(c.get("accessory"), dict):
                    assign(c["accessory"])
        for c in comps:
            assign(c)
        return comps

    def norm_embeds(self, embeds):
        out = []
        for e in self._strip_nulls(copy.deepcopy(embeds or [])):
            if isinstance(e, dict):
                e.setdefault("type", "rich")
                e["content_scan_version"] = 0
                out.append(e)
        return out

    def build_message(self, cid, author_id, p, files, *, mtype=0, flags=0, extra=None,
                      default_parse=("users", "roles", "everyone")):
        now = self.clock.now()
        mid = self.ids.next()
        mentions, everyone = self.mentions_for(p.get("content"), p.get("allowed_mentions"), list(default_parse))
        ephemeral = bool(flags & MSG_FLAG_EPHEMERAL)
        msg = {
            "type": mtype, "content": p.get("content") or "", "mentions": mentions, "mention_roles": [],
            "attachments": self.new_attachments(cid, p, files, ephemeral), "embeds": self.norm_embeds(p.get("embeds")),
            "timestamp": iso(now), "edited_timestamp": None, "flags": flags,
            "components": self.norm_components(p.get("components")), "id": mid, "channel_id": cid,
            "author": self.user_public(author_id), "pinned": False, "mention_everyone": everyone,
            "tts": bool(p.get("tts")),
        }
        ref = p.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            rcid = str(ref.get("channel_id") or cid)
            target = self.find_message(rcid, str(ref["message_id"]))
            if target is None:
                if ref.get("fail_if_not_exists", True):
                    raise form_error([(("message_reference",), "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")])
            else:
                msg["type"] = 19
                gid = self.channels.get(rcid, {}).get("guild_id")
                msg["message_reference"] = {"type": 0, "channel_id": rcid, "message_id": target["id"]}
                if gid:
                    msg["message_reference"]["guild_id"] = gid
                msg["referenced_message"] = copy.deepcopy(target)
                msg["referenced_message"].pop("referenced_message", None)
                am = p.get("allowed_mentions")
                replied = am.get("replied_user", True) if isinstance(am, dict) else True
                if replied and target["author"]["id"] not in [u["id"] for u in msg["mentions"]] \
                        and target["author"]["id"] != author_id:
                    msg["mentions"].append(self.user_public(target["author"]["id"]))
        if extra:
            msg.update(extra)
        return msg

    def apply_edit(self, msg, p, files, *, allow_flags=1 << 2, clear_loading=False):
        meta = self.meta[msg["id"]]
        meta["history"].append({"content": msg["content"], "components": copy.deepcopy(msg["components"]),
                                "edited_timestamp": msg["edited_timestamp"]})
        new = copy.deepcopy(msg)
        if "content" in p:
            new["content"] = p["content"] or ""
            new["mentions"], new["mention_everyone"] = self.mentions_for(new["content"], p.get("allowed_mentions"),
                                                                         ["users", "roles", "everyone"])
        if "embeds" in p:
            new["embeds"] = self.norm_embeds(p["embeds"])
        if "components" in p:
            new["components"] = self.norm_components(p["components"])
        if isinstance(p.get("flags"), int):
            new["flags"] = (new["flags"] & ~allow_flags) | (p["flags"] & allow_flags)
            if p["flags"] & MSG_FLAG_COMPONENTS_V2:
                new["flags"] |= MSG_FLAG_COMPONENTS_V2
        if clear_loading:
            new["flags"] &= ~MSG_FLAG_LOADING
        ephemeral = bool(new["flags"] & MSG_FLAG_EPHEMERAL)
        if "attachments" in p:
            keep = {str(a.get("id")) for a in (p["attachments"] or []) if isinstance(a, dict)}
            new["attachments"] = [a for a in new["attachments"] if a["id"] in keep]
        new["attachments"] = new["attachments"] + self.new_attachments(msg["channel_id"], p, files, ephemeral)
        has = bool(new["content"].strip()) or new["embeds"] or new["attachments"] or new["components"] \
            or new.get("sticker_items") or new.get("poll") or (new["flags"] & MSG_FLAG_LOADING)
        if not has:
            meta["history"].pop()
            raise ApiError(400, 50006, "Cannot send an empty message")
        new["edited_timestamp"] = iso(self.clock.now())
        msg.clear()
        msg.update(new)
        meta["edit_count"] += 1
        meta["changed_cursor"] = self.cursor
        return msg

    def summarize(self, msg):
        s = one_line(msg.get("content", ""))
        btns = []
        for row in msg.get("components") or []:
            for c in row.get("components", []) if isinstance(row, dict) else []:
                if c.get("type") == 2:
                    tag = c.get("custom_id") or c.get("url") or c.get("sku_id")
                    btns.append("%s(%s)%s" % (c.get("label") or (c.get("emoji") or {}).get("name") or "", tag,
                                              " disabled" if c.get("disabled") else ""))
                elif c.get("type") in (3, 5, 6, 7, 8):
                    btns.append("select(%s)" % c.get("custom_id"))
        if btns:
            s += " [buttons: %s]" % ", ".join(btns)
        if msg.get("attachments"):
            s += " [files: %s]" % ", ".join("%s (%d B)" % (a["filename"], a["size"]) for a in msg["attachments"])
        if msg.get("embeds"):
            s += " [embeds: %s]" % ", ".join(one_line(e.get("title") or e.get("description") or "")[:60]
                                            for e in msg["embeds"])
        if msg.get("flags", 0) & MSG_FLAG_EPHEMERAL:
            s += " (ephemeral)"
        return s

    def emit_message(self, t, msg):
        if msg.get("flags", 0) & MSG_FLAG_EPHEMERAL:
            return []
        d = self.message_event_payload(msg)
        nonce = self.meta.get(msg["id"], {}).get("nonce")
        if t == "MESSAGE_CREATE" and nonce is not None:
            d["nonce"] = nonce
        return self.dispatch(t, d)

    # ------------------------------------------------------------ REST handlers
    def gateway_url(self):
        return "ws://127.0.0.1:%d/gateway" % self.port

    def r_get_gateway(self, req, prm, p, files):
        return 200, {"url": self.gateway_url()}

    def r_get_bot_gateway(self, req, prm, p, files):
        now = time.monotonic()
        used = len([t for t in self.identify_times if now - t < 86400])
        return 200, {"url": self.gateway_url(), "shards": 1,
                     "session_start_limit": {"total": 1000, "remaining": max(0, 1000 - self.identifies_total),
                                             "reset_after": 86400000 if used else 0, "max_concurrency":
                                                 self.config["identify_max_concurrency"]}}

    def r_get_my_user(self, req, prm, p, files):
        u = self.user_public(self.bot_id)
        u.update({"verified": True, "mfa_enabled": False, "locale": "en-US", "email": None,
                  "premium_type": 0, "bio": ""})
        return 200, u

    def r_list_my_guilds(self, req, prm, p, files):
        return 200, [{"id": gid, "name": g["name"], "icon": None, "banner": None, "owner": False,
                      "permissions": str(self.config["bot_guild_permissions"]), "features": []}
                     for gid, g in sorted(self.guilds.items())]

    def app_flags(self):
        return (1 << 19 if self.config["message_content_enabled"] else 0) | \
            (1 << 15 if self.config["guild_members_enabled"] else 0) | \
            (1 << 13 if self.config["guild_presences_enabled"] else 0) | (1 << 23)

    def r_get_my_application(self, req, prm, p, files):
        return 200, {"id": self.app_id, "name": self.args.bot_name, "icon": None, "description": "",
                     "summary": "", "type": None, "hook": True, "bot_public": True,
                     "bot_require_code_grant": False, "verify_key": hashlib.sha256(self.app_id.encode()).hexdigest(),
                     "flags": self.app_flags(), "bot": self.user_public(self.bot_id), "team": None,
                     "owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None,
                               "global_name": None, "public_flags": 0, "flags": 0},
                     "approximate_guild_count": len(self.guilds), "redirect_uris": [],
                     "interactions_endpoint_url": None, "integration_types_config": {"0": {}},
                     "install_params": None, "tags": []}

    r_get_my_oauth2_application = r_get_my_application

    def r_create_dm(self, req, prm, p, files):
        p = p or {}
        rid = p.get("recipient_id")
        if rid is None:
            raise form_error([(("recipient_id",), "BASE_TYPE_REQUIRED", "This field is required")])
        rid = str(rid)
        if rid not in self.users or rid == self.bot_id:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        existed = rid in self.dm_by_user
        ch = self.get_dm(rid)
        if not existed:
            self.human("[%s] bot opened DM" % self.chan_label(ch["id"]))
        return 200, self.channel_public(ch)

    def r_get_channel(self, req, prm, p, files):
        ch = self.check_channel_write(prm["channel_id"], for_send=False)
        return 200, self.channel_public(ch)

    def r_list_messages(self, req, prm, p, files):
        ch = self.check_channel_write(prm["channel_id"], for_send=False)
        q = req["query"]
        try:
            limit = int(q.get("limit", ["50"])[0])
        except ValueError:
            raise form_error([(("limit",), "NUMBER_TYPE_COERCE", "Value is not int.")])
        if not 1 <= limit <= 100:
            raise form_error([(("limit",), "NUMBER_TYPE_MAX", "int value should be between 1 and 100.")])
        msgs = [m for m in self.messages.get(ch["id"], {}).values()
                if not self.meta[m["id"]].get("deleted") and not m.get("flags", 0) & MSG_FLAG_EPHEMERAL]
        msgs.sort(key=lambda m: int(m["id"]), reverse=True)
        if "before" in q:
            msgs = [m for m in msgs if int(m["id"]) < int(q["before"][0])]
        if "after" in q:
            msgs = [m for m in msgs if int(m["id"]) > int(q["after"][0])]
            msgs = list(reversed(list(reversed(msgs))[:limit]))
        return 200, copy.deepcopy(msgs[:limit])

    def r_get_message(self, req, prm, p, files):
        self.check_channel_write(prm["channel_id"], for_send=False)
        m = self.find_message(prm["channel_id"], prm["message_id"])
        if m is None or m.get("flags", 0) & MSG_FLAG_EPHEMERAL:
            raise unknown("message")
        return 200, copy.deepcopy(m)

    def _nonce_key(self, cid, nonce):
        return (cid, json.dumps(nonce))

    def r_create_message(self, req, prm, p, files):
        cid = prm["channel_id"]
        ch = self.check_channel_write(cid)
        p = p or {}
        nonce = p.get("nonce")
        if nonce is not None and p.get("enforce_nonce"):
            hit = self.nonces.get(self._nonce_key(cid, nonce))
            if hit and self.clock.now() - hit[1] < self.config["nonce_window_s"]:
                orig = self.find_message(cid, hit[0])
                if orig is not None:
                    self.record("nonce_dedupe", channel_id=cid, nonce=nonce, message_id=hit[0])
                    self.human("[%s] bot re-sent nonce %s -> deduplicated to m%s" % (self.chan_label(cid), nonce, hit[0]))
                    out = copy.deepcopy(orig)
                    out["nonce"] = nonce
                    return 200, out
        self.check_message_semantics(p, files)
        flags = (p.get("flags") or 0) & SETTABLE_MSG_FLAGS
        if (p.get("flags") or 0) & ~SETTABLE_MSG_FLAGS:
            self.violation("message_flags", "flags %d on a channel message: only SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, "
                           "IS_VOICE_MESSAGE, IS_COMPONENTS_V2 can be set (EPHEMERAL only on interaction responses); "
                           "the rest is ignored" % p["flags"], severity="warning")
        msg = self.build_message(cid, self.bot_id, p, files, flags=flags)
        if ch["type"] in (10, 11, 12) and ch.get("thread_metadata", {}).get("archived"):
            ch["thread_metadata"]["archived"] = False
            self.dispatch("THREAD_UPDATE", self.channel_public(ch))
        meta = {"author_kind": "bot", "nonce": nonce}
        self.store_message(msg, meta)
        if nonce is not None:
            self.nonces[self._nonce_key(cid, nonce)] = (msg["id"], self.clock.now())
        self.human("[%s] bot posted m%s: %s" % (self.chan_label(cid), msg["id"], self.summarize(msg)))
        out = copy.deepcopy(msg)
        if nonce is not None:
            out["nonce"] = nonce
        self.emit_message("MESSAGE_CREATE", msg)
        return 200, out

    def _old_edit_check(self, cid, msg):
        cfg = self.config["old_message_edit_limit"]
        if not cfg.get("enabled"):
            return
        if self.clock.now() - snowflake_time(msg["id"]) < cfg["age_s"]:
            return
        now = time.monotonic()
        b = self.old_edit_buckets.get(cid)
        if b is None or now >= b[1]:
            b = self.old_edit_buckets[cid] = [0, now + cfg["window_s"]]
        if b[0] >= cfg["limit"]:
            ra = max(0.001, b[1] - now)
            raise ApiError(429, 30046, "Maximum number of edits to messages older than 1 hour reached. Try again later.",
                           headers={"Retry-After": str(max(1, int(-(-ra // 1)))), "X-RateLimit-Scope": "user"},
                           extra={"retry_after": round(ra, 3), "global": False})
        b[0] += 1

    def r_update_message(self, req, prm, p, files):
        cid, mid = prm["channel_id"], prm["message_id"]
        self.check_channel_write(cid, for_send=False)
        msg = self.find_message(cid, mid)
        if msg is None:
            raise unknown("message")
        p = p or {}
        if msg["author"]["id"] != self.bot_id:
            if any(k in p for k in ("content", "embeds", "components", "attachments")) or files:
                self.violation("edit_foreign_message", "bot tried to edit m%s authored by %s" % (mid, msg["author"]["id"]))
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._old_edit_check(cid, msg)
        self.check_message_semantics(p, files, existing=msg, is_create=False)
        self.apply_edit(msg, p, files)
        self.human("[%s] bot edited m%s: %s" % (self.chan_label(cid), mid, self.summarize(msg)))
        self.emit_message("MESSAGE_UPDATE", msg)
        return 200, copy.deepcopy(msg)

    def delete_msg(self, msg, who="bot"):
        meta = self.meta[msg["id"]]
        meta["deleted"] = True
        meta["changed_cursor"] = self.cursor
        self.human("[%s] %s deleted m%s" % (self.chan_label(msg["channel_id"]), who, msg["id"]))
        if not msg.get("flags", 0) & MSG_FLAG_EPHEMERAL:
            d = {"id": msg["id"], "channel_id": msg["channel_id"]}
            gid = self.channels.get(msg["channel_id"], {}).get("guild_id")
            if gid:
                d["guild_id"] = gid
            self.dispatch("MESSAGE_DELETE", d)

    def r_delete_message(self, req, prm, p, files):
        cid, mid = prm["channel_id"], prm["message_id"]
        ch = self.check_channel_write(cid, for_send=False)
        msg = self.find_message(cid, mid)
        if msg is None:
            raise unknown("message")
        if msg["author"]["id"] != self.bot_id and ch["type"] == 1:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        self.delete_msg(msg)
        return 204, None

    def r_trigger_typing_indicator(self, req, prm, p, files):
        cid = prm["channel_id"]
        ch = self.check_channel_write(cid)
        d = {"user_id": self.bot_id, "timestamp": int(self.clock.now()), "channel_id": cid}
        if ch.get("guild_id"):
            d["guild_id"] = ch["guild_id"]
            d["member"] = dict(self.member_public(ch["guild_id"], self.bot_id), user=self.user_public(self.bot_id))
        last = self.typing_last.get(cid, -1e9)
        if self.clock.now() - last > 9:
            self.human("[%s] bot is typing" % self.chan_label(cid))
        self.typing_last[cid] = self.clock.now()
        self.dispatch("TYPING_START", d)
        return 204, None

    def make_thread(self, parent, name, ttype, owner_id, *, thread_id=None, auto_archive=None,
                    rate_limit=0, invitable=None):
        tid = thread_id or self.ids.next()
        now = iso(self.clock.now())
        th = {"id": tid, "type": ttype, "guild_id": parent["guild_id"], "parent_id": parent["id"],
              "owner_id": owner_id, "name": name, "last_message_id": None, "message_count": 0,
              "member_count": 1, "rate_limit_per_user": rate_limit or 0, "flags": 0, "total_message_sent": 0,
              "thread_metadata": {"archived": False, "auto_archive_duration": auto_archive or 4320,
                                  "archive_timestamp": now, "locked": False, "create_timestamp": now},
              "_perm": {"view": True, "send": True}}
        if ttype == 12:
            th["thread_metadata"]["invitable"] = True if invitable is None else bool(invitable)
        self.channels[tid] = th
        self.messages.setdefault(tid, collections.OrderedDict())
        return th

    def thread_member(self, th, uid):
        return {"id": th["id"], "user_id": uid, "join_timestamp": iso(self.clock.now()), "flags": 1,
                "muted": False, "mute_config": None}

    def r_create_thread(self, req, prm, p, files):
        cid = prm["channel_id"]
        parent = self.check_channel_write(cid)
        p = p or {}
        if parent["type"] not in (0, 5, 15, 16):
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if parent["type"] in (15, 16):
            raise ApiError(400, 50024, "Cannot execute action on this channel type (forum posts not emulated)")
        ttype = p.get("type")
        if ttype is None:
            ttype = 10 if parent["type"] == 5 else 12
        th = self.make_thread(parent, p["name"], int(ttype), self.bot_id, auto_archive=p.get("auto_archive_duration"),
                              rate_limit=p.get("rate_limit_per_user"), invitable=p.get("invitable"))
        out = self.channel_public(th)
        out["member"] = self.thread_member(th, self.bot_id)
        self.human("[%s] bot created thread %s (type %d)" % (self.chan_label(cid), th["name"], th["type"]))
        ev = dict(out)
        ev["newly_created"] = True
        self.dispatch("THREAD_CREATE", ev)
        if th["type"] in (10, 11):
            sysmsg = self.build_message(cid, self.bot_id, {"content": th["name"]}, [], mtype=18)
            sysmsg["mentions"] = []
            sysmsg["message_reference"] = {"type": 0, "channel_id": th["id"], "guild_id": th["guild_id"]}
            self.store_message(sysmsg, {"author_kind": "system"})
            self.emit_message("MESSAGE_CREATE", sysmsg)
        return 201, out

    def r_create_thread_from_message(self, req, prm, p, files):
        cid, mid = prm["channel_id"], prm["message_id"]
        parent = self.check_channel_write(cid)
        p = p or {}
        if parent["type"] not in (0, 5):
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        msg = self.find_message(cid, mid)
        if msg is None:
            raise unknown("message")
        if mid in self.channels or msg.get("thread"):
            raise ApiError(400, 160004, "A thread has already been created for this message")
        ttype = 10 if parent["type"] == 5 else 11
        th = self.make_thread(parent, p["name"], ttype, self.bot_id, thread_id=mid,
                              auto_archive=p.get("auto_archive_duration"), rate_limit=p.get("rate_limit_per_user"))
        out = self.channel_public(th)
        out["member"] = self.thread_member(th, self.bot_id)
        self.human("[%s] bot created thread %s from m%s" % (self.chan_label(cid), th["name"], mid))
        ev = dict(out)
        ev["newly_created"] = True
        self.dispatch("THREAD_CREATE", ev)
        msg["thread"] = self.channel_public(th)
        msg["flags"] = msg.get("flags", 0) | (1 << 5)  # HAS_THREAD
        self.meta[mid]["changed_cursor"] = self.cursor
        self.emit_message("MESSAGE_UPDATE", msg)
        return 201, out

    def _emoji_of(self, raw):
        e = urllib.parse.unquote(raw)
        if ":" in e:
            name, _, eid = e.partition(":")
            return {"id": eid, "name": name}
        return {"id": None, "name": e}

    def r_add_my_message_reaction(self, req, prm, p, files):
        cid, mid = prm["channel_id"], prm["message_id"]
        ch = self.check_channel_write(cid, for_send=False)
        msg = self.find_message(cid, mid)
        if msg is None:
            raise unknown("message")
        emoji = self._emoji_of(prm["emoji_name"])
        self.reactions.append({"channel_id": cid, "message_id": mid, "emoji": emoji, "user_id": self.bot_id, "op": "add"})
        self.human("[%s] bot reacted %s on m%s" % (self.chan_label(cid), emoji["name"], mid))
        d = {"user_id": self.bot_id, "channel_id": cid, "message_id": mid, "emoji": emoji, "type": 0, "burst": False,
             "message_author_id": msg["author"]["id"]}
        if ch.get("guild_id"):
            d["guild_id"] = ch["guild_id"]
        self.dispatch("MESSAGE_REACTION_ADD", d)
        return 204, None

    def r_delete_my_message_reaction(self, req, prm, p, files):
        cid, mid = prm["channel_id"], prm["message_id"]
        self.check_channel_write(cid, for_send=False)
        if self.find_message(cid, mid) is None:
            raise unknown("message")
        self.reactions.append({"channel_id": cid, "message_id": mid, "emoji": self._emoji_of(prm["emoji_name"]),
                               "user_id": self.bot_id, "op": "remove"})
        return 204, None

    # --- application commands
    def _check_app(self, prm):
        if prm["application_id"] != self.app_id:
            raise unknown("application")

    def r_list_application_commands(self, req, prm, p, files):
        self._check_app(prm)
        return 200, copy.deepcopy(self.commands["global"])

    def r_list_guild_application_commands(self, req, prm, p, files):
        self._check_app(prm)
        if prm["guild_id"] not in self.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return 200, copy.deepcopy(self.commands.get(prm["guild_id"], []))

    def _command_semantics(self, cmds):
        errs = []
        seen = {}
        counts = collections.Counter()
        name_rx = re.compile(r"^[-_'\w]{1,32}$", re.UNICODE)
        for i, c in enumerate(cmds):
            if not isinstance(c, dict):
                continue
            ctype = c.get("type") or 1
            counts[ctype] += 1
            name = c.get("name") or ""
            if ctype == 1:
                if not name_rx.match(name) or name != name.lower():
                    errs.append(((i, "name"), "APPLICATION_COMMAND_INVALID_NAME",
                                 "Command name is invalid (lowercase, 1-32 of letters, digits, - _ ')"))
                d = c.get("description")
                if not d:
                    errs.append(((i, "description"), "BASE_TYPE_REQUIRED", "This field is required"))
            elif c.get("description"):
                errs.append(((i, "description"), "APPLICATION_COMMAND_INVALID_DESCRIPTION",
                             "Description must be empty for USER and MESSAGE commands"))
            key = (ctype, name)
            if key in seen:
                errs.append(((i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"))
            seen[key] = i
            self._option_semantics(c.get("options") or [], (i, "options"), errs, name_rx)
        for t, lim in ((1, 100), (2, 15), (3, 15)):
            if counts[t] > lim:
                raise ApiError(400, 30032, "Maximum number of application commands reached (%d)" % lim)
        if errs:
            raise form_error(errs)

    def _option_semantics(self, opts, path, errs, name_rx):
        names = set()
        seen_optional = False
        for j, o in enumerate(opts):
            if not isinstance(o, dict):
                continue
            op = path + (j,)
            n = o.get("name") or ""
            if not name_rx.match(n) or n != n.lower():
                errs.append((op + ("name",), "APPLICATION_COMMAND_INVALID_NAME", "Option name is invalid"))
            if n in names:
                errs.append((op + ("name",), "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option names must be unique"))
            names.add(n)
            if not o.get("description"):
                errs.append((op + ("description",), "BASE_TYPE_REQUIRED", "This field is required"))
            if o.get("type") in (1, 2):
                self._option_semantics(o.get("options") or [], op + ("options",), errs, name_rx)
            else:
                if o.get("required"):
                    if seen_optional:
                        errs.append((op + ("required",), "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                                     "Required options must be placed before non-required options"))
                else:
                    seen_optional = True

    def _bulk_set(self, scope, p, guild_id=None):
        if not isinstance(p, list):
            raise form_error([((), "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")])
        self._command_semantics(p)
        old = {(c["type"], c["name"]): c for c in self.commands.get(scope, [])}
        out = []
        for c in p:
            ctype = c.get("type") or 1
            prev = old.get((ctype, c["name"]))
            cmd = {"id": prev["id"] if prev else self.ids.next(), "application_id": self.app_id,
                   "version": self.ids.next(), "default_member_permissions": c.get("default_member_permissions"),
                   "type": ctype, "name": c["name"], "name_localizations": c.get("name_localizations"),
                   "description": c.get("description") or "", "description_localizations": c.get("description_localizations"),
                   "dm_permission": c.get("dm_permission", True) if guild_id is None else None,
                   "contexts": c.get("contexts"), "integration_types": c.get("integration_types") or [0],
                   "nsfw": bool(c.get("nsfw", False))}
            if guild_id:
                cmd["guild_id"] = guild_id
                cmd.pop("dm_permission")
            if c.get("options"):
                cmd["options"] = self._strip_nulls(copy.deepcopy(c["options"]))
            if cmd["default_member_permissions"] is not None:
                cmd["default_member_permissions"] = str(cmd["default_member_permissions"])
            out.append(cmd)
        self.commands[scope] = out
        self.human("[commands] bot registered %s commands: %s" % ("global" if scope == "global" else "guild " + scope,
                                                                  ", ".join("/" + c["name"] for c in out) or "(none)"))
        return 200, copy.deepcopy(out)

    def r_bulk_set_application_commands(self, req, prm, p, files):
        self._check_app(prm)
        return self._bulk_set("global", p)

    def r_bulk_set_guild_application_commands(self, req, prm, p, files):
        self._check_app(prm)
        if prm["guild_id"] not in self.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return self._bulk_set(prm["guild_id"], p, guild_id=prm["guild_id"])

    # ------------------------------------------------------------ interactions
    def _it_extra(self, it, followup=False):
        md = {"id": it["id"], "type": it["type"], "user": self.user_public(it["user_id"]),
              "authorizing_integration_owners": it["payload"]["authorizing_integration_owners"]}
        if it["type"] == 2:
            md["name"] = it["payload"]["data"]["name"]
            md["command_type"] = it["payload"]["data"].get("type", 1)
        if it["type"] == 3:
            md["interacted_message_id"] = it["message_id"]
        if followup and it.get("original_message_id"):
            md["original_response_message_id"] = it["original_message_id"]
        return {"webhook_id": self.app_id, "application_id": self.app_id, "interaction_metadata": md}

    def _it_label(self, it):
        if it["type"] == 2:
            return "/" + it["payload"]["data"]["name"]
        if it["type"] == 3:
            return "click " + it["payload"]["data"]["custom_id"]
        return "interaction %s" % it["id"]

    def r_create_interaction_response(self, req, prm, p, files):
        it = self.interactions.get(prm["interaction_id"])
        if it is None or not hmac.compare_digest(it["token"], prm["interaction_token"]):
            raise unknown("interaction")
        now = self.clock.now()
        if it["acked"]:
            self.violation("interaction_double_ack", "second callback for interaction %s (%s)" % (it["id"], self._it_label(it)),
                           severity="warning", req=req)
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        age = now - it["created_clock"]
        if age > self.config["interaction_deadline_s"]:
            self.violation("interaction_late_ack", "callback for interaction %s after %.2fs (deadline %.1fs)"
                           % (it["id"], age, self.config["interaction_deadline_s"]), severity="warning")
            raise unknown("interaction")
        if not isinstance(p, dict):
            raise form_error([(("type",), "BASE_TYPE_REQUIRED", "This field is required")])
        t = p.get("type")
        allowed = CALLBACK_TYPES.get(it["type"], [])
        if it["type"] == 5 and not it.get("message_id"):
            allowed = [4, 5]
        if t not in allowed:
            self.violation("interaction_callback_type", "callback type %s not valid for interaction type %s"
                           % (t, it["type"]), req=req)
            raise form_error([(("type",), "INTERACTION_CALLBACK_TYPE_INVALID",
                               "Value must be one of {%s}." % ", ".join(map(str, allowed)))])
        data = p.get("data") or {}
        cid = it["channel_id"]
        label = self.chan_label(cid)
        msg = None
        if t == 4:
            self.check_message_semantics(data, files, path=("data",))
            flags = (data.get("flags") or 0) & INTERACTION_SETTABLE_FLAGS
            msg = self.build_message(cid, self.bot_id, data, files, mtype=20 if it["type"] == 2 else 0,
                                     flags=flags, extra=self._it_extra(it), default_parse=("users",))
            self.store_message(msg, {"author_kind": "interaction", "interaction_id": it["id"]})
            it["original_message_id"] = msg["id"]
            self.human("[%s] bot replied to %s m%s: %s" % (label, self._it_label(it), msg["id"], self.summarize(msg)))
            self.emit_message("MESSAGE_CREATE", msg)
        elif t == 5:
            df = data.get("flags") or 0
            if df & ~MSG_FLAG_EPHEMERAL:
                raise form_error([(("data", "flags"), "INTERACTION_DEFERRED_FLAGS_INVALID",
                                   "Only the EPHEMERAL flag may be set on a deferred response")])
            flags = MSG_FLAG_LOADING | (df & MSG_FLAG_EPHEMERAL)
            msg = self.build_message(cid, self.bot_id, {}, [], mtype=20 if it["type"] == 2 else 0, flags=flags,
                                     extra=self._it_extra(it))
            self.store_message(msg, {"author_kind": "interaction", "interaction_id": it["id"]})
            it["original_message_id"] = msg["id"]
            it["loading"] = True
            self.human("[%s] bot is thinking... (deferred %s, m%s%s)" % (label, self._it_label(it), msg["id"],
                                                                        ", ephemeral" if flags & MSG_FLAG_EPHEMERAL else ""))
            self.emit_message("MESSAGE_CREATE", msg)
        elif t == 6:
            it["original_message_id"] = it.get("message_id")
            self.human("[%s] bot acknowledged %s (deferred update)" % (label, self._it_label(it)))
        elif t == 7:
            target = self.find_message(self.msg_channel.get(it["message_id"], cid), it["message_id"])
            if target is None:
                raise unknown("message")
            self.check_message_semantics(data, files, path=("data",), existing=target, is_create=False)
            self.apply_edit(target, data, files)
            msg = target
            it["original_message_id"] = target["id"]
            self.human("[%s] bot updated m%s via %s: %s" % (label, target["id"], self._it_label(it), self.summarize(target)))
            self.emit_message("MESSAGE_UPDATE", target)
        elif t == 8:
            self.human("[%s] bot sent autocomplete choices" % label)
        elif t == 9:
            self.human("[%s] bot opened modal %s" % (label, one_line(data.get("title", ""))))
        elif t == 1:
            self.human("[%s] bot answered PING" % label)
        it["acked"] = True
        it["ack_type"] = t
        it["ack_clock"] = now
        it["ack_latency_s"] = round(age, 4)
        it["callback"] = {"type": t, "data": data, "files": [{"filename": f["filename"], "size": len(f["data"])} for f in files]}
        if truthy(req["query"].get("with_response", ["false"])[0]):
            out = {"interaction": {"id": it["id"], "type": it["type"]}, "resource": {"type": t}}
            if msg is not None:
                out["interaction"]["response_message_id"] = msg["id"]
                out["interaction"]["response_message_loading"] = bool(msg["flags"] & MSG_FLAG_LOADING)
                out["interaction"]["response_message_ephemeral"] = bool(msg["flags"] & MSG_FLAG_EPHEMERAL)
                out["resource"]["message"] = copy.deepcopy(msg)
            return 200, out
        return 204, None

    def _webhook_interaction(self, prm):
        iid = self.tokens.get(prm["webhook_token"])
        if prm["webhook_id"] != self.app_id or iid is None:
            raise unknown("webhook")
        it = self.interactions[iid]
        if self.clock.now() - it["created_clock"] > self.config["interaction_token_ttl_s"]:
            self.violation("interaction_token_expired", "webhook call with token of interaction %s older than %.0fs"
                           % (iid, self.config["interaction_token_ttl_s"]), severity="warning")
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if not it["acked"]:
            raise unknown("webhook")
        return it

    def _webhook_message(self, it, which):
        mid = it.get("original_message_id") if which == "@original" else which
        if mid is None or (which != "@original" and mid not in it["followups"] and mid != it.get("original_message_id")):
            raise unknown("message")
        msg = self.find_message(self.msg_channel.get(mid, ""), mid)
        if msg is None:
            raise unknown("message")
        return msg

    def r_execute_webhook(self, req, prm, p, files):
        it = self._webhook_interaction(prm)
        p = p or {}
        self.check_message_semantics(p, files)
        cid = it["channel_id"]
        if it.get("loading") and it.get("original_message_id"):
            msg = self._webhook_message(it, "@original")
            self.apply_edit(msg, p, files, clear_loading=True)
            it["loading"] = False
            self.human("[%s] bot finished deferred %s m%s: %s" % (self.chan_label(cid), self._it_label(it), msg["id"],
                                                                 self.summarize(msg)))
            self.emit_message("MESSAGE_UPDATE", msg)
            return 200, copy.deepcopy(msg)
        flags = (p.get("flags") or 0) & INTERACTION_SETTABLE_FLAGS
        msg = self.build_message(cid, self.bot_id, p, files, flags=flags, extra=self._it_extra(it, followup=True),
                                 default_parse=("users",))
        self.store_message(msg, {"author_kind": "interaction", "interaction_id": it["id"]})
        it["followups"].append(msg["id"])
        self.human("[%s] bot followed up %s m%s: %s" % (self.chan_label(cid), self._it_label(it), msg["id"], self.summarize(msg)))
        self.emit_message("MESSAGE_CREATE", msg)
        return 200, copy.deepcopy(msg)

    def _webhook_edit(self, prm, p, files, which):
        it = self._webhook_interaction(prm)
        msg = self._webhook_message(it, which)
        p = p or {}
        self.check_message_semantics(p, files, existing=msg, is_create=False)
        self.apply_edit(msg, p, files, clear_loading=True)
        if msg["id"] == it.get("original_message_id"):
            it["loading"] = False
        self.human("[%s] bot edited m%s: %s" % (self.chan_label(msg["channel_id"]), msg["id"], self.summarize(msg)))
        self.emit_message("MESSAGE_UPDATE", msg)
        return 200, copy.deepcopy(msg)

    def r_update_original_webhook_message(self, req, prm, p, files):
        return self._webhook_edit(prm, p, files, "@original")

    def r_update_webhook_message(self, req, prm, p, files):
        return self._webhook_edit(prm, p, files, prm["message_id"])

    def r_get_original_webhook_message(self, req, prm, p, files):
        it = self._webhook_interaction(prm)
        return 200, copy.deepcopy(self._webhook_message(it, "@original"))

    def r_get_webhook_message(self, req, prm, p, files):
        it = self._webhook_interaction(prm)
        return 200, copy.deepcopy(self._webhook_message(it, prm["message_id"]))

    def r_delete_original_webhook_message(self, req, prm, p, files):
        it = self._webhook_interaction(prm)
        self.delete_msg(self._webhook_message(it, "@original"))
        return 204, None

    def r_delete_webhook_message(self, req, prm, p, files):
        it = self._webhook_interaction(prm)
        self.delete_msg(self._webhook_message(it, prm["message_id"]))
        return 204, None

    # ------------------------------------------------------------ gateway
    def serve_ws(self, sock, kind, query, initial=b""):
        conn = GatewayConn(self, sock, kind)
        with self.cond:
            self.conns[conn.id] = conn
            self.stats["ws_connections"] += 1
            self.record("ws_open", conn=conn.id, path_kind=kind, query=query)
            self.human("[gateway] connection %d opened (%s)" % (conn.id, kind))
            v, enc, comp = query.get("v"), query.get("encoding"), query.get("compress")
            if v != "10" or enc != "json":
                self.violation("gateway_query", "gateway URL query v=%r encoding=%r (need v=10&encoding=json)" % (v, enc))
                self.ws_close(conn, 4012)
            elif comp:
                self.violation("gateway_query", "compress=%r is not supported by the fake" % comp, severity="warning")
                self.ws_close(conn, 4000, "Unknown error (fake: transport compression not emulated).")
            else:
                self.ws_send(conn, {"op": 10, "s": None, "t": None,
                                    "d": {"heartbeat_interval": self.config["heartbeat_interval_ms"],
                                          "_trace": ["[\"fake-discord-gateway\",{\"micros\":0}]"]}})
        reader = ws_server.FrameReader(sock, initial, max_message=1 << 20)
        sock.settimeout(0.05)
        end = "unknown"
        try:
            while True:
                now = time.monotonic()
                with self.cond:
                    if not conn.open:
                        end = "killed"
                        break
                    if conn.close_sent_at is not None and now - conn.close_sent_at > 1.0:
                        end = "server_close"
                        break
                    if conn.kill_at is not None and now >= conn.kill_at:
                        self._kill_conn(conn, "reconnect timeout")
                        end = "killed_after_reconnect"
                        break
                    if self.config["heartbeat_timeout_enabled"] and conn.close_sent is None:
                        limit = self.config["heartbeat_interval_ms"] / 1000.0 * self.config["heartbeat_timeout_factor"] \
                            + self.config["heartbeat_timeout_extra_ms"] / 1000.0
                        if now - conn.last_heartbeat > limit:
                            self.record("heartbeat_timeout", conn=conn.id)
                            self.violation("heartbeat_timeout", "no heartbeat from connection %d for %.2fs"
                                           % (conn.id, now - conn.last_heartbeat), severity="warning")
                            self.ws_close(conn, 4009)
                msg = reader.poll()
                if msg is None:
                    continue
                if msg[0] == "close":
                    code, reason = msg[1], msg[2]
                    with self.cond:
                        self.record("ws_close_recv", conn=conn.id, code=code, reason=reason,
                                    session=conn.session.id if conn.session else None)
                        self.human("[gateway] bot closed connection %d with %s %s" % (conn.id, code, reason))
                        if conn.close_sent is None:
                            conn.close_sent = (code, "echo")
                            conn.push(ws_server.encode_frame(ws_server.OP_CLOSE, ws_server.close_payload(code, reason[:60])
                                                             if code not in (None, 1005, 1006, 1015) else b""))
                        if conn.session is not None and code in (1000, 1001):
                            conn.session.invalidated = True
                    end = "client_close"
                    break
                if msg[0] == "ping":
                    conn.push(ws_server.encode_frame(ws_server.OP_PONG, msg[1]))
                    continue
                if msg[0] == "pong":
                    continue
                if conn.close_sent is not None:
                    continue
                if msg[0] == "binary":
                    with self.cond:
                        self.record("ws", dir="in", conn=conn.id, binary=True, size=len(msg[1]))
                        self.violation("gateway_binary", "binary frame on an encoding=json connection")
                        self.ws_close(conn, 4002)
                    continue
                self.on_gateway_text(conn, msg[1])
        except ws_server.ProtocolError as e:
            with self.cond:
                self.violation("websocket_protocol", "connection %d: %s" % (conn.id, e.reason))
                self.ws_close(conn, e.code, e.reason)
            end = "protocol_error"
        except ws_server.ConnectionLost:
            end = "tcp_closed"
        finally:
            self.ws_finish(conn, end)

    def ws_finish(self, conn, end):
        with self.cond:
            conn.open = False
            self.conns.pop(conn.id, None)
            s = conn.session
            if s is not None and s.conn is conn:
                s.conn = None
                s.disconnected_at = time.monotonic()
            self.record("ws_end", conn=conn.id, how=end, session=s.id if s else None,
                        resumable=bool(s and not s.invalidated))
            self.human("[gateway] connection %d ended (%s)%s" % (
                conn.id, end, "" if s is None else (", session resumable" if not s.invalidated else ", session invalidated")))
        conn.push(None)
        conn.writer.join(1.0)
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        for sk in (conn.sock, conn.wsock):
            try:
                sk.close()
            except OSError:
                pass

    def on_gateway_text(self, conn, text):
        with self.cond:
            raw_len = len(text.encode("utf-8"))
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            op = parsed.get("op") if isinstance(parsed, dict) else None
            shown = text[:8192]
            if op in (2, 6) and isinstance(parsed.get("d"), dict) and "token" in parsed["d"]:
                red = copy.deepcopy(parsed)
                red["d"]["token"] = "<redacted>" if red["d"]["token"] == self.token else "<redacted:wrong-token>"
                shown = json.dumps(red, separators=(",", ":"), ensure_ascii=False)[:8192]
            self.record("ws", dir="in", conn=conn.id, session=conn.session.id if conn.session else None,
                        op=op, text=shown, size=raw_len)
            now = time.monotonic()
            conn.sends.append(now)
            while conn.sends and now - conn.sends[0] > self.config["gateway_send_window_s"]:
                conn.sends.popleft()
            if len(conn.sends) > self.config["gateway_send_limit"]:
                self.violation("gateway_rate_limit", "connection %d sent more than %d payloads in %.0fs"
                               % (conn.id, self.config["gateway_send_limit"], self.config["gateway_send_window_s"]))
                self.ws_close(conn, 4008)
                return
            if raw_len > self.config["max_payload_bytes"]:
                self.violation("gateway_payload_size", "payload of %d bytes (> %d)" % (raw_len, self.config["max_payload_bytes"]))
                self.ws_close(conn, 4002)
                return
            if not isinstance(parsed, dict) or not isinstance(op, int) or isinstance(op, bool):
                self.violation("gateway_decode", "undecodable payload: %r" % text[:200])
                self.ws_close(conn, 4002)
                return
            d = parsed.get("d")
            if op == 1:
                return self.gw_heartbeat(conn, d)
            if op == 2:
                return self.gw_identify(conn, d)
            if op == 6:
                return self.gw_resume(conn, d)
            if op in (3, 4, 8, 31, 43):
                if conn.session is None:
                    self.violation("gateway_not_authenticated", "op %d before identify" % op)
                    self.ws_close(conn, 4003)
                    return
                if op == 3:
                    return self.gw_presence(conn, d)
                self.record("gateway_op_ignored", conn=conn.id, op=op, d=d)
                return
            self.violation("gateway_unknown_op", "client sent op %r" % op)
            self.ws_close(conn, 4001)

    def gw_heartbeat(self, conn, d):
        conn.last_heartbeat = time.monotonic()
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            self.violation("heartbeat_payload", "heartbeat d=%r (must be the last sequence number or null)" % (d,))
        elif conn.session is not None and isinstance(d, int) and d > conn.session.seq:
            self.violation("heartbeat_payload", "heartbeat d=%d is ahead of the session's seq %d" % (d, conn.session.seq),
                           severity="warning")
        if self.config["drop_heartbeat_acks"] or conn.drop_acks:
            self.record("heartbeat_ack_dropped", conn=conn.id)
            return
        self.ws_send(conn, {"op": 11, "s": None, "t": None, "d": None})

    def gw_identify(self, conn, d):
        if conn.session is not None:
            self.violation("gateway_identify", "second identify on connection %d" % conn.id)
            self.ws_close(conn, 4005)
            return
        if not isinstance(d, dict):
            self.violation("gateway_identify", "identify d is not an object")
            self.ws_close(conn, 4002)
            return
        token, props, intents = d.get("token"), d.get("properties"), d.get("intents")
        if not isinstance(token, str) or not isinstance(props, dict) or not isinstance(intents, int) \
                or isinstance(intents, bool):
            self.violation("gateway_identify", "identify needs token (string), properties (object), intents (int); got %s"
                           % sorted(d.keys()))
            self.ws_close(conn, 4001)
            return
        if token != self.token:
            if token == "Bot " + self.token:
                self.violation("gateway_identify", "identify token must not carry the 'Bot ' prefix")
            self.ws_close(conn, 4004)
            return
        for k in ("os", "browser", "device"):
            if not isinstance(props.get(k), str):
                self.violation("gateway_identify", "identify properties.%s missing%s" % (
                    k, " (the $-prefixed names are deprecated)" if ("$" + k) in props else ""), severity="warning")
        if intents < 0 or intents & ~VALID_INTENTS:
            self.violation("gateway_identify", "unknown intent bits 0x%x" % (intents & ~VALID_INTENTS))
            self.ws_close(conn, 4013)
            return
        for bit, flag in PRIVILEGED.items():
            if intents & bit and not self.config[flag]:
                self.violation("gateway_identify", "privileged intent %d requested but %s is off" % (bit, flag))
                self.ws_close(conn, 4014)
                return
        shard = d.get("shard")
        if shard is not None:
            if not (isinstance(shard, list) and len(shard) == 2 and all(isinstance(x, int) for x in shard)
                    and 0 <= shard[0] < shard[1]):
                self.ws_close(conn, 4010)
                return
        lt = d.get("large_threshold")
        if lt is not None and (not isinstance(lt, int) or not 50 <= lt <= 250):
            self.violation("gateway_identify", "large_threshold %r outside 50..250" % (lt,), severity="warning")
        if d.get("compress"):
            self.violation("gateway_identify", "identify compress=true (payload compression) is not emulated",
                           severity="warning")
        now = time.monotonic()
        while self.identify_times and now - self.identify_times[0] > self.config["identify_window_s"]:
            self.identify_times.popleft()
        if len(self.identify_times) >= self.config["identify_max_concurrency"]:
            self.violation("identify_concurrency", "identify within %.1fs of the previous one (max_concurrency %d)"
                           % (self.config["identify_window_s"], self.config["identify_max_concurrency"]), severity="warning")
            self.ws_send(conn, {"op": 9, "s": None, "t": None, "d": False})
            self.human("[gateway] identify rate-limited -> op 9 (false)")
            return
        self.identify_times.append(now)
        self.identifies_total += 1
        self.stats["identifies"] += 1
        sid = secrets.token_hex(16)
        s = Session(sid, intents, tuple(shard) if shard and shard != [0, 1] else None, self.clock.now())
        s.conn = conn
        conn.session = s
        self.sessions[sid] = s
        if isinstance(d.get("presence"), dict):
            self.gw_presence(conn, d["presence"], via="identify")
        user = self.user_public(self.bot_id)
        user.update({"verified": True, "mfa_enabled": False, "email": None, "flags": 0})
        ready = {"v": 10, "user_settings": {}, "user": user, "session_type": "normal", "session_id": sid,
                 "resume_gateway_url": "ws://127.0.0.1:%d/resume-gw" % self.port,
                 "relationships": [], "private_channels": [], "presences": [], "guild_join_requests": [],
                 "geo_ordered_rtc_regions": ["fake"], "auth": {},
                 "guilds": [{"id": g, "unavailable": True} for g in self.guilds],
                 "application": {"id": self.app_id, "flags": self.app_flags()},
                 "_trace": ["[\"fake-discord-gateway\",{\"micros\":0}]"]}
        if shard is not None:
            ready["shard"] = shard
        self.dispatch("READY", ready, only_session=sid)
        for g in self.guilds:
            self.dispatch("GUILD_CREATE", self.guild_create_payload(g), only_session=sid)
        self.human("[gateway] bot identified: session %s, intents %d" % (sid[:8], intents))

    def gw_resume(self, conn, d):
        if conn.session is not None:
            self.violation("gateway_resume", "resume on an already authenticated connection")
            self.ws_close(conn, 4005)
            return
        if not isinstance(d, dict) or not isinstance(d.get("token"), str) or not isinstance(d.get("session_id"), str):
            self.violation("gateway_resume", "resume needs token, session_id, seq")
            self.ws_close(conn, 4001)
            return
        if d["token"] != self.token:
            self.ws_close(conn, 4004)
            return
        seq = d.get("seq")
        if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
            self.ws_close(conn, 4001)
            return
        seq = seq or 0
        s = self.sessions.get(d["session_id"])
        if s is None or not self.session_alive(s):
            self.stats["resume_failed"] += 1
            self.ws_send(conn, {"op": 9, "s": None, "t": None, "d": False})
            self.human("[gateway] resume of unknown/expired session %s -> op 9 (false)" % d["session_id"][:8])
            return
        if seq > s.seq:
            self.violation("gateway_resume", "resume seq %d ahead of session seq %d" % (seq, s.seq))
            s.invalidated = True
            self.ws_close(conn, 4007)
            return
        if conn.kind != "resume":
            self.violation("gateway_resume", "resumed on the /gateway/bot URL instead of resume_gateway_url",
                           severity="warning")
        if s.conn is not None and s.conn is not conn:
            old = s.conn
            s.conn = None
            self._kill_conn(old, "session resumed elsewhere")
        conn.session = s
        s.conn = conn
        s.disconnected_at = None
        s.resumes += 1
        self.stats["resumes"] += 1
        missed = [pl for pl in s.buffer if pl["s"] > seq]
        for pl in missed:
            self.ws_send(conn, pl)
        self.dispatch("RESUMED", {"_trace": ["[\"fake-discord-gateway\",{\"micros\":0}]"]}, only_session=s.id)
        self.human("[gateway] bot resumed session %s from seq %d (replayed %d events)" % (s.id[:8], seq, len(missed)))

    def gw_presence(self, conn, d, via="op3"):
        statuses = ("online", "dnd", "idle", "invisible", "offline")
        ok = isinstance(d, dict) and d.get("status") in statuses and isinstance(d.get("activities"), list) \
            and all(isinstance(a, dict) and isinstance(a.get("name"), str) and a.get("type") in (0, 1, 2, 3, 4, 5)
                    for a in d.get("activities"))
        if not ok:
            self.violation("presence", "invalid presence update: %s" % json.dumps(d)[:300])
            if via == "op3":
                self.ws_close(conn, 4001)
            return
        for k in ("since", "afk"):
            if k not in d:
                self.violation("presence", "presence update lacks %r" % k, severity="warning")
        for a in d["activities"]:
            extra = set(a) - {"name", "state", "type", "url"}
            if extra:
                self.violation("presence", "bots may only set name/state/type/url on activities; also sent %s"
                               % sorted(extra), severity="warning")
        rec = {"session": conn.session.id if conn.session else None, "via": via, "status": d["status"],
               "activities": d["activities"], "afk": d.get("afk"), "since": d.get("since"), "time": time.time()}
        self.presences.append(rec)
        if conn.session:
            conn.session.presence = d
        self.record("presence", **rec)
        kinds = {0: "Playing", 1: "Streaming", 2: "Listening to", 3: "Watching", 4: "", 5: "Competing in"}
        acts = ", ".join(("%s %s" % (kinds[a["type"]], a.get("state") if a["type"] == 4 else a["name"])).strip()
                         for a in d["activities"])
        self.human("[gateway] presence: %s%s" % (d["status"], (", " + acts) if acts else ""))

    # ------------------------------------------------------------ control: injection
    def _user_from(self, b):
        u = b.get("author") or b.get("user") or b.get("owner") or {}
        if isinstance(u, str):
            u = {"id": u}
        u = dict(u)
        if b.get("user_id"):
            u.setdefault("id", str(b["user_id"]))
        if b.get("username"):
            u.setdefault("username", b["username"])
        if u.get("id") is not None:
            u["id"] = str(u["id"])
        return self.add_user(u)

    def _channel_from(self, b, user):
        if b.get("dm") or b.get("dm_user_id"):
            uid = str(b.get("dm_user_id") or user["id"])
            return self.get_dm(uid)
        cid = b.get("channel_id")
        if not cid:
            raise ValueError("channel_id (or dm: true) required")
        cid = str(cid)
        ch = self.channels.get(cid)
        if ch is None:
            ch = self.add_channel({"id": cid, "guild_id": b.get("guild_id"), "name": b.get("channel_name")})
        return ch

    def _files_from(self, specs):
        files = []
        for i, a in enumerate(specs or []):
            if "data_b64" in a:
                data = base64.b64decode(a["data_b64"])
            elif "text" in a:
                data = a["text"].encode("utf-8")
            else:
                data = b"\0" * int(a.get("size", 0))
            files.append({"index": i, "field": "files[%d]" % i, "filename": a.get("filename", "file%d" % i),
                          "content_type": a.get("content_type"), "data": data,
                          "spec": {k: a[k] for k in ("description", "title", "duration_secs", "waveform") if k in a}})
        return files

    def c_inject_message(self, b):
        u = self._user_from(b)
        ch = self._channel_from(b, u)
        content = b.get("content", "")
        tag = "<@%s>" % self.bot_id
        if b.get("mention_bot") and tag not in content and ("<@!%s>" % self.bot_id) not in content:
            content = tag + " " + content
        files = self._files_from(b.get("attachments"))
        p = {"content": content, "embeds": b.get("embeds") or [],
             "attachments": [dict(f["spec"], id=f["index"]) for f in files]}
        if b.get("reply_to"):
            p["message_reference"] = {"message_id": str(b["reply_to"])}
        flags = 0
        if b.get("voice"):
            # A voice message: no text, one Ogg attachment with duration_secs and waveform (discord-api.md §3).
            if content or len(files) != 1 or files[0]["spec"].get("duration_secs") is None:
                raise ValueError("a voice message has no content and one attachment with duration_secs")
            flags = MSG_FLAG_VOICE
        try:
            msg = self.build_message(ch["id"], u["id"], p, files, mtype=int(b.get("type", 0)), flags=flags)
        except ApiError as e:
            raise ValueError(json.dumps(e.body))
        if b.get("components"):
            msg["components"] = self.norm_components(b["components"])
        self.store_message(msg, {"author_kind": "user"})
        atts = "".join(" [file %s %d B]" % (a["filename"], a["size"]) for a in msg["attachments"])
        self.human("[%s] user %s: %s%s" % (self.chan_label(ch["id"]), u["username"], one_line(content), atts))
        delivered = self.emit_message("MESSAGE_CREATE", msg)
        return {"id": msg["id"], "channel_id": ch["id"], "guild_id": ch.get("guild_id"),
                "attachments": msg["attachments"], "message": self.message_event_payload(msg),
                "delivered_to": delivered}

    def c_update_message(self, mid, b):
        cid = self.msg_channel.get(mid)
        msg = self.find_message(cid, mid) if cid else None
        if msg is None:
            raise KeyError("unknown message %s" % mid)
        p = {k: b[k] for k in ("content", "embeds", "components") if k in b}
        self.apply_edit(msg, p, [])
        self.human("[%s] user %s edited m%s: %s" % (self.chan_label(cid), self.uname(msg["author"]["id"]), mid,
                                                   one_line(msg["content"])))
        return {"message": copy.deepcopy(msg), "delivered_to": self.emit_message("MESSAGE_UPDATE", msg)}

    def c_delete_message(self, mid, b):
        cid = self.msg_channel.get(mid)
        msg = self.find_message(cid, mid) if cid else None
        if msg is None:
            raise KeyError("unknown message %s" % mid)
        self.delete_msg(msg, who="user %s" % self.uname(msg["author"]["id"]) if msg["author"]["id"] != self.bot_id else "bot")
        return {"ok": True}

    @staticmethod
    def _find_component(comps, custom_id):
        for c in comps or []:
            if not isinstance(c, dict):
                continue
            if c.get("custom_id") == custom_id:
                return c
            hit = FakeDiscord._find_component(c.get("components"), custom_id)
            if hit:
                return hit
            if isinstance(c.get("accessory"), dict) and c["accessory"].get("custom_id") == custom_id:
                return c["accessory"]
        return None

    def _norm_options(self, given, defs):
        defs = defs or []
        if isinstance(given, dict):
            given = [{"name": k, "value": v} for k, v in given.items()]
        out = []
        for o in given or []:
            d = next((x for x in defs if x.get("name") == o.get("name")), None)
            t = o.get("type") or (d or {}).get("type")
            if t is None:
                v = o.get("value")
                t = 5 if isinstance(v, bool) else 4 if isinstance(v, int) else 10 if isinstance(v, float) else 3
            e = {"name": o["name"], "type": t}
            if t in (1, 2):
                e["options"] = self._norm_options(o.get("options", []), (d or {}).get("options"))
            else:
                e["value"] = o.get("value")
                if o.get("focused"):
                    e["focused"] = True
            out.append(e)
        return out

    def c_inject_interaction(self, b):
        t = b.get("type", 2)
        t = {"command": 2, "slash": 2, "button": 3, "component": 3, "select": 3, "modal": 5,
             "autocomplete": 4}.get(t, t)
        t = int(t)
        force = bool(b.get("force"))
        u = self._user_from(b)
        msg = None
        if t in (3,) or (t == 5 and b.get("message_id")):
            mid = str(b.get("message_id") or "")
            cid0 = self.msg_channel.get(mid)
            msg = self.find_message(cid0, mid) if cid0 else None
            if msg is None:
                raise ValueError("message_id %r not found (a component interaction needs the message it is on)" % mid)
            ch = self.channels[cid0]
        else:
            ch = self._channel_from(b, u)
        gid = ch.get("guild_id")
        if t == 3:
            comp = self._find_component(msg.get("components"), b.get("custom_id"))
            if comp is None and not force:
                raise ValueError("message %s has no component with custom_id %r" % (msg["id"], b.get("custom_id")))
            if comp is not None and comp.get("disabled") and not force:
                raise ValueError("component %r is disabled; a user cannot click it" % b.get("custom_id"))
            data = {"custom_id": b.get("custom_id"), "component_type": (comp or {}).get("type", 2)}
            if comp is not None and isinstance(comp.get("id"), int):
                data["id"] = comp["id"]
            if data["component_type"] in (3, 5, 6, 7, 8):
                data["values"] = b.get("values", [])
        elif t in (2, 4):
            name = b.get("name") or b.get("command")
            if not name:
                raise ValueError("name (command name) required")
            cmd = None
            if gid:
                cmd = next((c for c in self.commands.get(gid, []) if c["name"] == name), None)
            if cmd is None:
                cmd = next((c for c in self.commands["global"] if c["name"] == name), None)
                if cmd is not None and not gid:
                    ctx = cmd.get("contexts")
                    if (ctx is not None and 1 not in ctx) or cmd.get("dm_permission") is False:
                        cmd = None
            if cmd is None and not force:
                raise ValueError("command /%s is not registered for %s" % (name, "guild " + gid if gid else "DMs (global only)"))
            data = {"id": (cmd or {}).get("id") or self.ids.next(), "name": name, "type": (cmd or {}).get("type", 1)}
            opts = self._norm_options(b.get("options"), (cmd or {}).get("options"))
            if opts:
                data["options"] = opts
            if cmd and cmd.get("guild_id"):
                data["guild_id"] = cmd["guild_id"]
        elif t == 5:
            data = {"custom_id": b.get("custom_id"), "components": b.get("components", [])}
        else:
            raise ValueError("unsupported interaction type %r" % t)
        iid = self.ids.next()
        token = "aW50ZXJhY3Rpb246" + base64.urlsafe_b64encode(
            ("%s:%s" % (iid, secrets.token_urlsafe(48))).encode()).decode().rstrip("=")
        perms = "2248473465835073"
        chan = {"id": ch["id"], "type": ch["type"], "last_message_id": ch.get("last_message_id"), "flags": 0}
        payload = {"app_permissions": perms, "application_id": self.app_id,
                   "attachment_size_limit": self.config["max_file_size"],
                   "authorizing_integration_owners": {"0": gid or "0"}, "channel_id": ch["id"],
                   "context": 0 if gid else 1, "data": data, "entitlement_sku_ids": [], "entitlements": [],
                   "id": iid, "locale": b.get("locale", "en-US"), "token": token, "type": t, "version": 1}
        if gid:
            chan.update({"guild_id": gid, "name": ch.get("name"), "permissions": perms, "nsfw": False,
                         "parent_id": ch.get("parent_id"), "position": ch.get("position", 0), "topic": None,
                         "rate_limit_per_user": 0})
            payload.update({"guild_id": gid, "guild": {"id": gid, "locale": "en-US", "features": []},
                            "guild_locale": "en-US",
                            "member": dict(self.member_public(gid, u["id"]), user=self.user_public(u["id"]),
                                           permissions=perms)})
        else:
            chan["recipients"] = [self.user_public(u["id"])]
            payload["user"] = self.user_public(u["id"])
        payload["channel"] = chan
        if msg is not None:
            payload["message"] = copy.deepcopy(msg)
        it = {"id": iid, "token": token, "type": t, "payload": payload, "channel_id": ch["id"], "guild_id": gid,
              "user_id": u["id"], "created_clock": self.clock.now(), "acked": False, "ack_type": None,
              "original_message_id": None, "loading": False, "message_id": msg["id"] if msg else None,
              "followups": [], "calls": []}
        self.interactions[iid] = it
        self.tokens[token] = iid
        label = self.chan_label(ch["id"])
        if t == 2:
            def fmt(opts):
                return " ".join(("%s %s" % (o["name"], fmt(o.get("options", [])))) if o["type"] in (1, 2)
                                else "%s:%s" % (o["name"], json.dumps(o.get("value"), ensure_ascii=False)) for o in opts)
            self.human("[%s] slash %s: /%s %s" % (label, u["username"], data["name"], fmt(data.get("options", []))))
        elif t == 3:
            comp = self._find_component(msg.get("components"), data["custom_id"]) or {}
            self.human("[%s] click %s -> %s%s" % (label, u["username"], comp.get("label") or data["custom_id"],
                                                  "" if not comp.get("label") else " (%s)" % data["custom_id"]))
        else:
            self.human("[%s] interaction type %d by %s" % (label, t, u["username"]))
        delivered = self.dispatch("INTERACTION_CREATE", payload)
        return {"id": iid, "token": token, "application_id": self.app_id, "channel_id": ch["id"], "guild_id": gid,
                "interaction": payload, "delivered_to": delivered}

    def c_inject_thread(self, b):
        u = self._user_from(b) if (b.get("owner") or b.get("user") or b.get("user_id") or b.get("author")) else None
        pid = str(b.get("parent_id") or b.get("channel_id") or "")
        parent = self.channels.get(pid)
        if parent is None or parent["type"] not in (0, 5, 15):
            raise ValueError("parent_id must be a known guild text channel")
        mid = str(b["message_id"]) if b.get("message_id") else None
        start = None
        if mid:
            start = self.find_message(pid, mid)
            if start is None:
                raise ValueError("message_id %s not found in channel %s" % (mid, pid))
            if mid in self.channels:
                raise ValueError("a thread already exists for message %s" % mid)
        ttype = int(b.get("type", 10 if parent["type"] == 5 else 11))
        if mid and ttype == 12:
            raise ValueError("threads started from a message are public (11) or announcement (10)")
        th = self.make_thread(parent, b.get("name", "thread"), ttype, u["id"] if u else self.bot_id,
                              thread_id=mid)
        if start is not None:
            start["thread"] = self.channel_public(th)
            start["flags"] = start.get("flags", 0) | (1 << 5)
            self.meta[mid]["changed_cursor"] = self.cursor
        ev = self.channel_public(th)
        ev["newly_created"] = True
        if b.get("bot_member"):
            ev["member"] = self.thread_member(th, self.bot_id)
        self.human("[%s] %s created thread %s" % (self.chan_label(pid), "user " + u["username"] if u else "someone",
                                                  th["name"]))
        delivered = self.dispatch("THREAD_CREATE", ev)
        if start is not None:
            self.emit_message("MESSAGE_UPDATE", start)
        return {"id": th["id"], "thread": self.channel_public(th), "delivered_to": delivered}

    # ------------------------------------------------------------ control: views
    def message_view(self, m):
        meta = self.meta.get(m["id"], {})
        ch = self.channels.get(m["channel_id"], {})
        atts = []
        for a in m.get("attachments", []):
            blob = self.blobs.get(a["id"])
            atts.append({"id": a["id"], "filename": a["filename"], "size": a["size"],
                         "content_type": a.get("content_type"), "description": a.get("description"),
                         "url": a["url"], "bytes": len(blob["data"]) if blob else None})
        return {"id": m["id"], "channel_id": m["channel_id"], "guild_id": ch.get("guild_id"),
                "channel_label": self.chan_label(m["channel_id"]),
                "author_id": m["author"]["id"], "author_name": m["author"].get("username"),
                "author_kind": meta.get("author_kind"), "type": m["type"], "content": m["content"],
                "components": m.get("components", []), "embeds": m.get("embeds", []), "attachments": atts,
                "flags": m.get("flags", 0), "ephemeral": bool(m.get("flags", 0) & MSG_FLAG_EPHEMERAL),
                "loading": bool(m.get("flags", 0) & MSG_FLAG_LOADING),
                "timestamp": m["timestamp"], "edited_timestamp": m.get("edited_timestamp"),
                "edit_count": meta.get("edit_count", 0), "history": meta.get("history", []),
                "deleted": meta.get("deleted", False), "interaction_id": meta.get("interaction_id"),
                "nonce": meta.get("nonce"), "reference": m.get("message_reference"),
                "thread_id": (m.get("thread") or {}).get("id"), "cursor": meta.get("cursor"),
                "changed_cursor": meta.get("changed_cursor"), "mentions": [u["id"] for u in m.get("mentions", [])]}

    def list_messages(self, q):
        cid = q.get("channel_id")
        out = []
        for c, msgs in self.messages.items():
            if cid and c != cid:
                continue
            for m in msgs.values():
                meta = self.meta.get(m["id"], {})
                if meta.get("deleted") and not truthy(q.get("include_deleted", "0")):
                    continue
                if not self._author_ok(m, meta, q.get("author")):
                    continue
                out.append(self.message_view(m))
        out.sort(key=lambda v: int(v["id"]))
        return out

    def _author_ok(self, m, meta, author):
        if not author:
            return True
        if author == "bot":
            return m["author"]["id"] == self.bot_id
        if author == "user":
            return meta.get("author_kind") == "user"
        return m["author"]["id"] == author or m["author"].get("username") == author

    def interaction_view(self, it):
        return {"id": it["id"], "token": it["token"], "type": it["type"], "channel_id": it["channel_id"],
                "guild_id": it["guild_id"], "user_id": it["user_id"], "label": self._it_label(it),
                "acked": it["acked"], "ack_type": it["ack_type"], "ack_latency_s": it.get("ack_latency_s"),
                "callback": it.get("callback"), "original_message_id": it.get("original_message_id"),
                "loading": it.get("loading"), "followups": it["followups"], "message_id": it.get("message_id"),
                "calls": it["calls"], "age_s": round(self.clock.now() - it["created_clock"], 3)}

    def gateway_view(self):
        now = time.monotonic()
        return {
            "connections": [{"id": c.id, "kind": c.kind, "session": c.session.id if c.session else None,
                             "open": c.open, "close_sent": c.close_sent, "drop_acks": c.drop_acks,
                             "since_heartbeat_s": round(now - c.last_heartbeat, 3),
                             "age_s": round(now - c.opened_at, 3)} for c in self.conns.values()],
            "sessions": [{"id": s.id, "intents": s.intents, "seq": s.seq, "connected": s.conn is not None,
                          "conn": s.conn.id if s.conn else None, "invalidated": s.invalidated,
                          "alive": self.session_alive(s), "resumes": s.resumes, "presence": s.presence,
                          "buffered": len(s.buffer), "shard": s.shard} for s in self.sessions.values()],
            "identifies_total": self.identifies_total,
        }

    def stats_view(self):
        st = dict(self.stats)
        return {"requests": st.get("requests", 0), "rate_limited_429": st.get("rate_limited_429", 0),
                "rate_limited_429_by_scope": {k[len("rate_limited_429_"):]: v for k, v in st.items()
                                              if k.startswith("rate_limited_429_")},
                "invalid_requests": st.get("invalid_requests", 0),
                "invalid_requests_window": len(self.invalid_times),
                "status_counts": {k[7:]: v for k, v in st.items() if k.startswith("status_")},
                "ws_connections": st.get("ws_connections", 0), "identifies": st.get("identifies", 0),
                "resumes": st.get("resumes", 0), "resume_failed": st.get("resume_failed", 0),
                "violations": len(self.violations), "presence_updates": len(self.presences)}

    # ------------------------------------------------------------ control: wait
    def _pred(self, q):
        what = q.get("for") or q.get("kind") or "message"
        since = int(q.get("since", 0) or 0)
        count = int(q.get("count", 1) or 1)
        contains = q.get("contains")
        rx = re.compile(q["regex"], re.S) if q.get("regex") else None

        def text_ok(s):
            s = s or ""
            return (contains is None or contains in s) and (rx is None or rx.search(s) is not None)

        def events(kind):
            return [e for e in self.events[since:] if e["kind"] == kind]

        if what == "message":
            def p():
                hits = []
                for v in self.list_messages(q):
                    if v["changed_cursor"] is not None and v["changed_cursor"] < since:
                        continue
                    if not text_ok(v["content"]):
                        continue
                    if q.get("has_components") and not v["components"]:
                        continue
                    if q.get("loading") is not None and v["loading"] != truthy(q["loading"]):
                        continue
                    hits.append(v)
                return hits if len(hits) >= count else None
            return p
        if what == "request":
            def p():
                hits = [e for e in events("http")
                        if (not q.get("method") or e["method"] == q["method"].upper())
                        and (not q.get("path") or q["path"] in e["path"])
                        and (not q.get("status") or str(e["status"]) == str(q["status"]))]
                return hits[:count] if len(hits) >= count else None
            return p
        if what == "frame":
            def p():
                hits = [e for e in events("ws")
                        if (not q.get("dir") or e.get("dir") == q["dir"])
                        and (q.get("op") is None or str(e.get("op")) == str(q["op"]))
                        and (not q.get("t") or e.get("t") == q["t"])
                        and text_ok(e.get("text"))]
                return hits[:count] if len(hits) >= count else None
            return p
        if what in ("ready", "resumed"):
            t = what.upper()

            def p():
                hits = [e for e in events("ws") if e.get("dir") == "out" and e.get("t") == t]
                return hits[:count] if len(hits) >= count else None
            return p
        if what == "connected":
            def p():
                live = [c.id for c in self.conns.values() if c.session is not None and c.open and c.close_sent is None]
                return live if len(live) >= count else None
            return p
        if what == "disconnected":
            def p():
                return {"connections": 0} if not self.conns else None
            return p
        if what == "interaction":
            iid = q.get("id")

            def p():
                it = self.interactions.get(iid)
                if it is None:
                    return None
                if q.get("state", "acked") == "acked" and not it["acked"]:
                    return None
                if q.get("state") == "done" and (not it["acked"] or it.get("loading")):
                    return None
                return self.interaction_view(it)
            return p
        if what == "presence":
            def p():
                hits = [e for e in events("presence") if not q.get("status") or e["status"] == q["status"]]
                return hits[:count] if len(hits) >= count else None
            return p
        if what == "violation":
            def p():
                hits = [e for e in events("violation") if text_ok(e["vkind"] + ": " + e["detail"])]
                return hits[:count] if len(hits) >= count else None
            return p
        if what == "transcript":
            def p():
                hits = [e for e in events("human") if text_ok(e["line"])]
                return hits[:count] if len(hits) >= count else None
            return p
        if what == "event":
            def p():
                hits = [e for e in events(q.get("event_kind", "http"))]
                return hits[:count] if len(hits) >= count else None
            return p
        raise ValueError("unknown wait kind %r" % what)

    def c_wait(self, q):
        timeout = min(float(q.get("timeout", 10)), 300.0)
        pred = self._pred(q)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                r = pred()
                if r is not None:
                    return 200, {"ok": True, "result": r, "cursor": self.cursor}
                rem = deadline - time.monotonic()
                if rem <= 0:
                    return 408, {"ok": False, "error": "timeout after %.1fs waiting for %s" % (timeout, q.get("for") or q.get("kind") or "message"),
                                 "cursor": self.cursor}
                self.cond.wait(min(rem, 0.25))

    # ------------------------------------------------------------ control: router
    def gw_targets(self, b):
        conns = list(self.conns.values())
        if b.get("conn") is not None:
            conns = [c for c in conns if c.id == int(b["conn"])]
        if b.get("session_id"):
            conns = [c for c in conns if c.session and c.session.id == b["session_id"]]
        return conns

    def handle_control(self, method, path, q, body):
        try:
            b = json.loads(body.decode("utf-8")) if body else {}
        except ValueError:
            return 400, {}, {"error": "control body must be JSON"}
        if not isinstance(b, dict):
            return 400, {}, {"error": "control body must be a JSON object"}
        q1 = {k: v[-1] for k, v in q.items()}
        sub = path[len("/_control"):].rstrip("/") or "/"
        try:
            if sub == "/wait" and method == "GET":
                st, out = self.c_wait(q1)
                return st, {}, out
            with self.cond:
                if method != "GET":
                    self.record("control", method=method, path=path, body=b)
                st, out = self._control(method, sub, q1, b)
                if isinstance(out, dict) and "cursor" not in out and st == 200:
                    out["cursor"] = self.cursor
                return st, {}, out
        except (ValueError, KeyError, TypeError) as e:
            return 400, {}, {"error": "%s: %s" % (type(e).__name__, e)}

    def _control(self, method, sub, q, b):
        m = re.fullmatch(r"/messages/(\d+)(/edit|/delete)?", sub)
        if m:
            mid = m.group(1)
            if method == "GET" and not m.group(2):
                cid = self.msg_channel.get(mid)
                if not cid:
                    return 404, {"error": "unknown message"}
                return 200, self.message_view(self.messages[cid][mid])
            if method == "POST" and m.group(2) == "/edit":
                return 200, self.c_update_message(mid, b)
            if method == "POST" and m.group(2) == "/delete":
                return 200, self.c_delete_message(mid, b)
        m = re.fullmatch(r"/threads/(\d+)/archive", sub)
        if m and method == "POST":
            # A user closes the thread (the client's "Close Thread").
            th = self.channels.get(m.group(1))
            if th is None or th["type"] not in (10, 11, 12):
                return 404, {"error": "unknown thread"}
            th["thread_metadata"]["archived"] = True
            self.human("[%s] thread archived" % self.chan_label(th["id"]))
            self.dispatch("THREAD_UPDATE", self.channel_public(th))
            return 200, {"archived": True}
        m = re.fullmatch(r"/channels/(\d+)/messages", sub)
        if m and method == "GET":
            return 200, {"messages": self.list_messages(dict(q, channel_id=m.group(1)))}
        m = re.fullmatch(r"/interactions/(\d+)", sub)
        if m and method == "GET":
            it = self.interactions.get(m.group(1))
            return (200, self.interaction_view(it)) if it else (404, {"error": "unknown interaction"})
        m = re.fullmatch(r"/gateway/(\w+)", sub)
        if m and method == "POST":
            return self._control_gateway(m.group(1), b)
        key = (method, sub)
        if key == ("GET", "/health"):
            return 200, {"ok": True, "port": self.port, "base": "http://127.0.0.1:%d/api/v10" % self.port,
                         "gateway": self.gateway_url(), "bot_user_id": self.bot_id, "application_id": self.app_id,
                         "schema_validation": self.validator is not None and self.config["schema_validation"]}
        if key == ("GET", "/state"):
            return 200, {"bot_user": self.user_public(self.bot_id), "application_id": self.app_id,
                         "guilds": list(self.guilds.values()),
                         "channels": [self.channel_public(c) for c in self.channels.values()],
                         "users": list(self.users.values()), "dm_channels": self.dm_by_user,
                         "commands": self.commands, "gateway": self.gateway_view(), "stats": self.stats_view()}
        if key == ("GET", "/config"):
            return 200, {"config": self.config}
        if key == ("POST", "/token/reset"):
            # The Developer Portal's Reset Token: the old token is refused from now on, every REST
            # call with it a 401 (discord-api.md §8, item 1: a wrong token is a 401 "401: Unauthorized").
            self.token = self.token + "-reset"
            return 200, {"reset": True}
        if key == ("POST", "/config"):
            for k, v in b.items():
                if k not in self.config:
                    raise KeyError("unknown config key %r (known: %s)" % (k, ", ".join(sorted(self.config))))
                if isinstance(self.config[k], dict) and isinstance(v, dict):
                    self.config[k].update(v)
                else:
                    self.config[k] = v
            if "global_limit" in b or "global_window_s" in b:
                self.global_window = [0.0, 0]
            return 200, {"config": self.config}
        if key == ("GET", "/ratelimits"):
            now = time.monotonic()
            return 200, {"routes": {r.key: {"group": r.group, "limit": self.route_limits.get(r.group, self.route_limits["default"])[0],
                                            "window_s": self.route_limits.get(r.group, self.route_limits["default"])[1],
                                            "bucket": self._bucket_hash(r.group if r.group != "default" else "default:" + r.key),
                                            "major": r.major,
                                            "global_exempt": r.global_exempt} for r in ROUTES},
                         "groups": self.route_limits,
                         "global": {"limit": self.config["global_limit"], "window_s": self.config["global_window_s"]},
                         "buckets": [{"group": k[0], "major": k[1], "remaining": v["remaining"], "limit": v["limit"],
                                      "reset_after": round(max(0, v["reset_at"] - now), 3)} for k, v in self.buckets.items()],
                         "storms": self.storms, "faults": self.faults}
        if key == ("POST", "/ratelimits"):
            for name, spec in (b.get("routes") or b.get("groups") or {}).items():
                group = name
                for r in ROUTES:
                    if name in (r.key, r.name):
                        group = r.group
                if group not in self.route_limits:
                    raise KeyError("unknown route/group %r" % name)
                self.route_limits[group] = [int(spec["limit"]), float(spec.get("window_s", spec.get("window", 1.0)))]
                for k in [k for k in self.buckets if k[0] == group or k[0].startswith(group + ":")]:
                    del self.buckets[k]
                    self.holds.pop(k, None)
            if "global" in b:
                self.config["global_limit"] = int(b["global"]["limit"])
                self.config["global_window_s"] = float(b["global"].get("window_s", 1.0))
                self.global_window = [0.0, 0]
            if b.get("reset_buckets"):
                self.buckets.clear()
                self.holds.clear()
                self.global_window = [0.0, 0]
            return 200, {"groups": self.route_limits}
        if key == ("POST", "/ratelimits/storm"):
            scope = b.get("scope", "user")
            if scope not in ("user", "global", "shared"):
                raise ValueError("scope must be user, global or shared")
            st = {"route": b.get("route", "*"), "major": b.get("major"), "scope": scope,
                  "retry_after": float(b.get("retry_after", 1.0)),
                  "remaining": int(b["count"]) if b.get("count") is not None else None,
                  "until": time.monotonic() + float(b["seconds"]) if b.get("seconds") is not None else None}
            if st["remaining"] is None and st["until"] is None:
                st["remaining"] = 1
            self.storms.append(st)
            self.human("[control] 429 storm: %s" % json.dumps({k: v for k, v in st.items() if k != "until"}))
            return 200, {"storm": st}
        if key in (("DELETE", "/ratelimits/storm"), ("POST", "/ratelimits/storm/clear")):
            self.storms.clear()
            return 200, {"ok": True}
        if key == ("POST", "/faults"):
            f = {"route": b.get("route", "*"), "status": int(b.get("status", 502)), "apply": bool(b.get("apply")),
                 "remaining": int(b["count"]) if b.get("count") is not None else None,
                 "until": time.monotonic() + float(b["seconds"]) if b.get("seconds") is not None else None}
            if "body" in b:
                f["body"] = b["body"]
            if f["remaining"] is None and f["until"] is None:
                f["remaining"] = 1
            self.faults.append(f)
            return 200, {"fault": f}
        if key in (("DELETE", "/faults"), ("POST", "/faults/clear")):
            self.faults.clear()
            return 200, {"ok": True}
        if key == ("GET", "/clock"):
            return 200, {"now": self.clock.now(), "iso": iso(self.clock.now()), "scale": self.clock.scale,
                         "offset_s": self.clock.offset}
        if key == ("POST", "/clock"):
            if "scale" in b:
                self.clock.set_scale(float(b["scale"]))
            if "advance_s" in b:
                self.clock.advance(float(b["advance_s"]))
            self.cond.notify_all()
            return 200, {"now": self.clock.now(), "iso": iso(self.clock.now()), "scale": self.clock.scale,
                         "offset_s": self.clock.offset}
        if key == ("POST", "/users"):
            return 200, {"user": self.add_user(b)}
        if key == ("GET", "/users"):
            return 200, {"users": list(self.users.values())}
        if key == ("POST", "/guilds"):
            g = self.add_guild(str(b.get("id") or self.ids.next()), b.get("name"))
            if self.sessions and b.get("emit", True):
                self.dispatch("GUILD_CREATE", self.guild_create_payload(g["id"]))
            return 200, {"guild": g}
        if key == ("POST", "/channels"):
            return 200, {"channel": self.channel_public(self.add_channel(b))}
        if key == ("GET", "/channels"):
            return 200, {"channels": [dict(self.channel_public(c), label=self.chan_label(c["id"]))
                                      for c in self.channels.values()]}
        if key == ("POST", "/dm"):
            u = self._user_from(b)
            return 200, {"channel": self.channel_public(self.get_dm(u["id"]))}
        if key == ("POST", "/messages"):
            return 200, self.c_inject_message(b)
        if key == ("GET", "/messages"):
            return 200, {"messages": self.list_messages(q)}
        if key == ("POST", "/interactions"):
            return 200, self.c_inject_interaction(b)
        if key == ("GET", "/interactions"):
            return 200, {"interactions": [self.interaction_view(it) for it in self.interactions.values()]}
        if key == ("POST", "/threads"):
            return 200, self.c_inject_thread(b)
        if key == ("POST", "/dispatch"):
            if not b.get("t") or not isinstance(b.get("d"), dict):
                raise ValueError("need t (event name) and d (object)")
            return 200, {"delivered_to": self.dispatch(b["t"], b["d"], only_session=b.get("session_id"))}
        if key == ("GET", "/commands"):
            return 200, {"commands": self.commands}
        if key == ("GET", "/gateway"):
            return 200, self.gateway_view()
        if key == ("GET", "/requests"):
            ev = [e for e in self.events[int(q.get("since", 0)):] if e["kind"] == "http"
                  and (not q.get("method") or e["method"] == q["method"].upper())
                  and (not q.get("path") or q["path"] in e["path"])]
            return 200, {"requests": ev}
        if key == ("GET", "/frames"):
            ev = [e for e in self.events[int(q.get("since", 0)):] if e["kind"] == "ws"
                  and (not q.get("dir") or e.get("dir") == q["dir"])
                  and (q.get("op") is None or str(e.get("op")) == q["op"])
                  and (not q.get("t") or e.get("t") == q["t"])]
            return 200, {"frames": ev}
        if key == ("GET", "/transcript"):
            kinds = set(q["kind"].split(",")) if q.get("kind") else None
            ev = [e for e in self.events[int(q.get("since", 0)):] if kinds is None or e["kind"] in kinds]
            return 200, {"events": ev}
        if key == ("GET", "/violations"):
            sev = q.get("severity")
            return 200, {"violations": [v for v in self.violations if not sev or v["severity"] == sev]}
        if key == ("GET", "/presences"):
            return 200, {"presences": self.presences}
        if key == ("GET", "/reactions"):
            return 200, {"reactions": self.reactions}
        if key == ("GET", "/stats"):
            return 200, self.stats_view()
        if key == ("GET", "/cursor"):
            return 200, {"cursor": self.cursor}
        if key == ("POST", "/reset"):
            self.reset_all()
            return 200, {"ok": True}
        if key == ("POST", "/clear"):
            self.clear_records()
            return 200, {"ok": True}
        return 404, {"error": "unknown control route %s %s" % (method, sub)}

    def _control_gateway(self, action, b):
        targets = self.gw_targets(b)
        ids = [c.id for c in targets]
        if action == "heartbeat_request":
            for c in targets:
                self.ws_send(c, {"op": 1, "s": None, "t": None, "d": None})
        elif action == "reconnect":
            after = float(b.get("close_after_ms", self.config["reconnect_close_after_ms"]))
            for c in targets:
                self.ws_send(c, {"op": 7, "s": None, "t": None, "d": None})
                if after > 0:
                    c.kill_at = time.monotonic() + after / 1000.0
            self.human("[gateway] server asked connections %s to reconnect (op 7)" % ids)
        elif action == "invalid_session":
            resumable = bool(b.get("resumable", False))
            for c in targets:
                self.ws_send(c, {"op": 9, "s": None, "t": None, "d": resumable})
                if not resumable and c.session:
                    c.session.invalidated = True
            self.human("[gateway] server sent op 9 (%s) to %s" % (str(resumable).lower(), ids))
        elif action == "close":
            code = int(b.get("code", 4000))
            for c in targets:
                self.ws_close(c, code, b.get("reason"))
        elif action == "kill":
            for c in targets:
                self._kill_conn(c, "control kill")
            self.human("[gateway] server dropped TCP of connections %s without a close frame" % ids)
        elif action == "drop_acks":
            en = bool(b.get("enabled", True))
            if b.get("future") is not None:
                self.config["drop_heartbeat_acks"] = bool(b["future"])
            elif not en:
                self.config["drop_heartbeat_acks"] = False
            for c in targets:
                c.drop_acks = en
        elif action == "invalidate_sessions":
            for s in self.sessions.values():
                if not b.get("session_id") or s.id == b["session_id"]:
                    s.invalidated = True
        else:
            return 404, {"error": "unknown gateway action %r" % action}
        return 200, {"ok": True, "connections": ids}

    # ------------------------------------------------------------ CDN
    def handle_cdn(self, path, q):
        m = re.fullmatch(r"/(attachments|media-attachments)/(\d+)/(\d+)/([^/]+)", path)
        if not m:
            return 404, {"Content-Type": "text/plain"}, b"Not Found"
        cid, aid, fname = m.group(2), m.group(3), urllib.parse.unquote(m.group(4))
        blob = self.blobs.get(aid)
        try:
            ex, is_, hm = int(q["ex"][0], 16), int(q["is"][0], 16), q["hm"][0]
        except (KeyError, ValueError, IndexError):
            blob = None
            ex = is_ = 0
            hm = ""
        if blob is not None:
            sig = hmac.new(self.cdn_secret, ("%s/%s/%s:%x:%x" % (cid, aid, fname, ex, is_)).encode(),
                           hashlib.sha256).hexdigest()
            if not hmac.compare_digest(sig, hm) or self.clock.now() > ex:
                blob = None
        if blob is None:
            self.record("cdn", path=path, status=404)
            return 404, {"Content-Type": "text/plain"}, b"This content is no longer available."
        self.record("cdn", path=path, status=200, size=len(blob["data"]))
        return 200, {"Content-Type": blob["content_type"] or "application/octet-stream"}, blob["data"]


# ---------------------------------------------------------------- transcript helpers
def redact_headers(headers):
    out = {}
    for k, v in headers.items():
        if k.lower() == "authorization":
            scheme = v.split(" ", 1)[0] if " " in v else ""
            v = (scheme + " " if scheme else "") + "<redacted>"
        out[k] = v
    return out


def describe_body(headers, body):
    if not body:
        return None
    ctype = (headers.get("Content-Type") or "").lower()
    if ctype.startswith("application/json"):
        try:
            return json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return {"_invalid_json": body[:2000].decode("utf-8", "replace")}
    if ctype.startswith("multipart/form-data"):
        try:
            parts = parse_multipart(body, headers.get("Content-Type"))
        except ValueError as e:
            return {"_invalid_multipart": str(e), "size": len(body)}
        out = {"_multipart": []}
        for p in parts:
            if p["filename"] is None:
                val = p["data"].decode("utf-8", "replace")
                if p["name"] == "payload_json":
                    try:
                        val = json.loads(val)
                    except ValueError:
                        pass
                out["_multipart"].append({"name": p["name"], "value": val})
            else:
                out["_multipart"].append({"name": p["name"], "filename": p["filename"],
                                          "content_type": p["content_type"], "size": len(p["data"])})
        return out
    return {"_raw": body[:2000].decode("utf-8", "replace"), "size": len(body)}


# ---------------------------------------------------------------- HTTP server
class Handler(BaseHTTPRequestHandler):
    # The body goes out at once, as a real server sends it. http.server writes the headers and
    # the body in two sends; with Nagle's algorithm the body waited for the client's delayed ACK
    # (~40 ms), a delay no real platform adds (measured: half of all Telegram updates took it).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_version = "fake-discord"
    sys_version = ""
    app = None  # set in main

    def version_string(self):
        return self.server_version

    def log_message(self, fmt, *args):
        if self.app.args.verbose:
            sys.stderr.write("fake-discord: %s\n" % (fmt % args))

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def do_PUT(self):
        self._route("PUT")

    def do_PATCH(self):
        self._route("PATCH")

    def do_DELETE(self):
        self._route("DELETE")

    def _read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            chunks = []
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        n = int(self.headers.get("Content-Length") or 0)
        if n > self.app.config["max_request_size"] * 2:
            raise OverflowError(n)
        return self.rfile.read(n) if n > 0 else b""

    def _route(self, method):
        app = self.app
        try:
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
            base = path.rstrip("/") or "/"
            if base in ("/gateway", "/resume-gw") and (self.headers.get("Upgrade") or "").lower() == "websocket":
                return self._websocket(base, query)
            try:
                body = self._read_body()
            except OverflowError:
                self.close_connection = True
                return self._send(413, {"Content-Type": "application/json"},
                                  json.dumps({"message": "Request entity too large", "code": 40005}).encode())
            except ValueError:
                self.close_connection = True
                return self._send(400, {"Content-Type": "text/plain"}, b"bad request body framing")
            if path.startswith("/api/"):
                st, h, b = app.handle_rest(method, path, query, self.headers, body)
            elif path.startswith("/_control"):
                if method == "GET" and path.rstrip("/") == "/_control/transcript.txt":
                    with app.cond:
                        txt = "\n".join(app.human_lines) + ("\n" if app.human_lines else "")
                    st, h, b = 200, {"Content-Type": "text/plain; charset=utf-8"}, txt.encode("utf-8")
                else:
                    st, h, out = app.handle_control(method, path, query, body)
                    b = json.dumps(out).encode("utf-8")
                    h = dict(h, **{"Content-Type": "application/json"})
            elif path.startswith("/attachments/") or path.startswith("/media-attachments/"):
                with app.cond:
                    st, h, b = app.handle_cdn(path, query)
            elif base in ("/gateway", "/resume-gw"):
                st, h, b = 400, {"Content-Type": "text/plain"}, b"WebSocket upgrade required"
            else:
                st, h, b = 404, {"Content-Type": "application/json"}, b'{"message": "404: Not Found", "code": 0}'
            self._send(st, h, b)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:
            traceback.print_exc()
            try:
                self._send(500, {"Content-Type": "application/json"},
                           json.dumps({"message": "fake-discord internal error", "code": 0}).encode())
            except OSError:
                pass
            self.close_connection = True

    def _send(self, status, headers, body):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        if body and status not in (204, 304):
            self.wfile.write(body)
        self.wfile.flush()

    def _websocket(self, base, query):
        ok, status, reason = ws_server.check_handshake(self.command, self.headers)
        if not ok:
            self.close_connection = True
            return self._send(status, {"Content-Type": "text/plain"}, reason.encode())
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", ws_server.accept_key(self.headers["Sec-WebSocket-Key"].strip()))
        self.end_headers()
        self.wfile.flush()
        initial = b""
        try:
            self.connection.setblocking(False)
            initial = self.rfile.read1(65536) or b""
        except (BlockingIOError, OSError, TypeError):
            initial = b""
        finally:
            self.connection.setblocking(True)
        q = {k: v[-1] for k, v in query.items()}
        self.close_connection = True
        self.app.serve_ws(self.connection, "resume" if base == "/resume-gw" else "gateway", q, initial)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def default_spec_path():
    cands = [os.environ.get("FAKE_DISCORD_SPEC"), os.path.join(HERE, "discord-openapi.json"),
             "/work/shared/specs/discord-openapi.json"]
    d = HERE
    for _ in range(6):
        d = os.path.dirname(d)
        cands.append(os.path.join(d, "shared", "specs", "discord-openapi.json"))
    for c in cands:
        if c and os.path.isfile(c):
            return c
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fake Discord REST+gateway server for tests")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--control-port-file", required=True)
    ap.add_argument("--token", default="fake-bot-token")
    ap.add_argument("--heartbeat-ms", type=int, default=41250)
    ap.add_argument("--spec", default=None, help="discord-openapi.json (default: $FAKE_DISCORD_SPEC or shared/specs)")
    ap.add_argument("--no-schema", action="store_true", help="run without OpenAPI request validation")
    ap.add_argument("--app-id", default=None)
    ap.add_argument("--bot-user-id", default="1300000000000000001")
    ap.add_argument("--bot-name", default="pi-relay-test-bot")
    ap.add_argument("--guild", action="extend", nargs="+", default=[], help="guild id(s); repeatable")
    ap.add_argument("--channel", action="extend", nargs="+", default=[],
                    help="guild text channel(s) ID[:NAME[:GUILD_ID]] (guild defaults to the first --guild)")
    ap.add_argument("--user", action="extend", nargs="+", default=[], help="known user(s) ID[:USERNAME]")
    ap.add_argument("--transcript", default=None)
    ap.add_argument("--time-scale", type=float, default=1.0)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.no_schema:
        args.spec = None
    else:
        args.spec = args.spec or default_spec_path()
        if not args.spec or not os.path.isfile(args.spec):
            ap.error("OpenAPI spec not found; pass --spec PATH, set FAKE_DISCORD_SPEC, or use --no-schema")
    for x in [args.bot_user_id] + [args.app_id or "0"] + args.guild:
        if not is_snowflake(x):
            ap.error("ids must be snowflakes (decimal strings): %r" % x)
    app = FakeDiscord(args)
    Handler.app = app
    srv = Server(("127.0.0.1", args.port), Handler)
    app.port = srv.server_address[1]
    info = {"port": app.port, "base": "http://127.0.0.1:%d/api/v10" % app.port,
            "gateway": "ws://127.0.0.1:%d/gateway" % app.port}
    tmp = args.control_port_file + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, args.control_port_file)
    if args.verbose:
        sys.stderr.write("fake-discord listening on %s\n" % json.dumps(info))
    import signal
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()


if __name__ == "__main__":
    main()
