#!/usr/bin/env python3
"""Fake Telegram Bot API server for pi-relayd tests.

Test-tree code, Python 3.11 standard library only; it shares no code with the
plugin under test. Behaviour follows /work/shared/specs/telegram-bot-api.md
(our reading of Bot API 10.1) and, where that reading is not precise, the Bot
API server and TDLib sources it cites (tdlib/telegram-bot-api Client.cpp,
tdlib/td MessageEntity.cpp). Deviations are listed in README.md. Do not change
behaviour here to make a plugin test pass; fix the plugin.

Usage:
  python3 fake_telegram.py --port 0 --control-port-file PATH [--token TOKEN]
      [--transcript FILE] [--spec telegram-bot-api.json] [--callback-deadline S]
      [--retention-scale X] [--no-rate-limits] [--first-update-id N] [--verbose]
      [--bot-id N] [--bot-username NAME] [--bot-name NAME]
"""

import argparse
import base64
import collections
import hashlib
import json
import math
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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))

# The bot this fake stands for (--bot-id / --bot-username / --bot-name). Several fakes, one per bot,
# can stand for several bots in one group; each store uses its own values, never these constants.
DEFAULT_BOT_ID = 7000000001
DEFAULT_BOT_USERNAME = "pirelay_test_bot"
DEFAULT_BOT_FIRST_NAME = "pi relay"
DEFAULT_TOKEN = "123456:TEST-telegram-token-abcdefghijklmnop"

MAX_DOWNLOAD = 20 << 20      # getFile refuses bigger files (server MAX_DOWNLOAD_FILE_SIZE)
MAX_UPLOAD = 50 << 20        # documents
MAX_PHOTO = 10 << 20
MAX_PARAMS = 1 << 20         # non-file parameters (HttpReader MAX_TOTAL_PARAMETERS_LENGTH)
MAX_RAW_TEXT = 1 << 15       # Client::get_formatted_text: "Text is too long"
TEXT_MAX, CAPTION_MAX = 4096, 1024
ICON_COLORS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
CHAT_ACTIONS = {"typing", "upload_photo", "record_video", "upload_video", "record_voice", "record_audio",
                "upload_voice", "upload_audio", "upload_document", "choose_sticker", "find_location",
                "pick_up_location", "record_video_note", "upload_video_note", "cancel"}
# Message media beside photo, document and voice (spec §5): each a field of its own on Message.
MEDIA_KINDS = ("audio", "video", "video_note", "animation")
# Update kinds a getUpdates client may ask for; [] or nothing valid = all but these three (server default).
UPDATE_KINDS = ("message", "edited_message", "channel_post", "edited_channel_post", "inline_query",
                "chosen_inline_result", "callback_query", "custom_event", "custom_query", "shipping_query",
                "pre_checkout_query", "poll", "poll_answer", "my_chat_member", "chat_member", "chat_join_request",
                "chat_boost", "removed_chat_boost", "message_reaction", "message_reaction_count",
                "business_connection", "business_message", "edited_business_message", "deleted_business_messages",
                "purchased_paid_media", "managed_bot", "guest_message")
DEFAULT_ALLOWED = frozenset(UPDATE_KINDS) - {"chat_member", "message_reaction", "message_reaction_count"}
# Methods that act on one chat: they are the ones held by an announced retry window.
CHAT_METHODS = {"sendMessage", "sendPhoto", "sendDocument", "editMessageText", "editMessageReplyMarkup",
                "deleteMessage", "sendChatAction", "createForumTopic"}
RETRY_REACTION_S = 0.1   # a request this soon after a 429 may already have been on its way
RETRY_SLACK_S = 0.02     # ... or this close to the window's end: timing noise, not a violation

DEFAULT_SETTINGS = {
    "callback_deadline_s": 15.0,     # answerCallbackQuery later than this -> "query is too old"
    "callback_retention_s": 150.0,   # callback_query updates live this long in the queue (server)
    "message_retention_s": 86400.0,  # message updates are dropped this long after the message date (server)
    "rate_limits": True,
    "chat_per_second": 1.0,          # per-chat token bucket (sends + edits)
    "chat_burst": 3,
    "group_per_minute": 20,          # groups/supergroups, sliding 60 s
    "global_per_second": 30,         # whole bot, sliding 1 s
    "poll_throttle": True,           # server: same offset within 3 s / 0.5 s stretches timeout / limits to 1
    "conflict_spacing": True,        # server: 409s for getUpdates are spaced >= 3 s apart
    "privacy_mode": False,           # True: group messages only reach the bot when addressed to it (spec §13)
    "bot_is_admin": True,            # bot may delete others' messages in groups and create topics; an admin
                                     # also reads every group message despite privacy_mode (spec §13)
    "file_link_ttl_s": 3600.0,       # a file_path from getFile stays downloadable this long
}


# ---------------------------------------------------------------- small helpers
class ApiError(Exception):
    """A Bot API failure. vkind: violation to record (None = the bot could not have avoided it)."""

    def __init__(self, code, description, parameters=None, vkind="rejected", headers=None):
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters
        self.vkind, self.headers = vkind, headers or {}


def bad(detail, vkind="rejected", **params):
    return ApiError(400, "Bad Request: " + detail, params or None, vkind)


class DropConnection(Exception):
    """Close the client's socket without any answer (POST /_control/cut_polls)."""


class ControlError(Exception):
    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def td_int(s, lo=-(1 << 63), hi=(1 << 63) - 1):
    """td::to_integer: optional '-', leading digits, anything else is ignored; no digits -> 0."""
    m = re.match(r"-?\d+", s or "")
    v = int(m.group(0)) if m else 0
    return max(lo, min(hi, v))


def td_bool(s):
    return (s or "").strip().lower() in ("true", "yes", "1")


def u16len(s):
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def u16_index(s):
    """utf16 offset of every code point index (len(s)+1 entries)."""
    out, n = [0], 0
    for ch in s:
        n += 2 if ord(ch) > 0xFFFF else 1
        out.append(n)
    return out


def one_line(s, n=160):
    s = (s or "").replace("\n", " \u23ce ")
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def image_size(data):
    """(width, height) of PNG/JPEG/GIF/WebP bytes, or None if it is not an image we recognise."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return (512, 512)
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            seg = struct.unpack(">H", data[i + 2:i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return (w, h)
            i += 2 + seg
    return None


# ---------------------------------------------------------------- text: HTML parser (TDLib parse_html port)
class HtmlParseError(Exception):
    pass


HTML_TAGS = {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji",
             "tg-time", "span", "pre", "code", "blockquote"}
SPLITTABLE = ("bold", "italic", "underline", "strikethrough", "spoiler")   # TDLib flush order
BLOCKQUOTES = {"blockquote", "expandable_blockquote"}
PRE_TYPES = {"pre", "code", "date_time"}
CONTINUOUS = {"mention", "hashtag", "bot_command", "url", "email", "text_link", "text_mention", "cashtag",
              "phone_number", "bank_card_number", "custom_emoji"}
PRIORITY = {"mention": 50, "hashtag": 50, "bot_command": 50, "url": 50, "email": 50, "bold": 90, "italic": 91,
            "code": 20, "pre": 11, "text_link": 49, "text_mention": 49, "cashtag": 50, "phone_number": 50,
            "underline": 92, "strikethrough": 93, "blockquote": 0, "bank_card_number": 50, "spoiler": 94,
            "custom_emoji": 99, "expandable_blockquote": 0, "date_time": 30}


def checked_link(url):
    """LinkManager::get_checked_link, simplified: http(s)/tg/ton links; a bare host gets http://."""
    url = url.strip()
    if not url or any(c in url for c in " \n\t<>\""):
        return ""
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):(//)?(.*)$", url)
    if m and m.group(1).lower() in ("tg", "ton"):
        return url
    if m and m.group(2) and m.group(1).lower() not in ("http", "https"):
        return ""
    if not (m and m.group(2)):
        if ":" in url.split("/")[0] and not re.match(r"^[\w.-]+:\d+", url):
            return ""
        url = "http://" + url
    m = re.match(r"^(https?)://([^/?#]+)(.*)$", url, re.I)
    if not m or "." not in m.group(2) and m.group(2).split(":")[0].lower() != "localhost":
        return ""
    return "%s://%s%s" % (m.group(1).lower(), m.group(2).lower(), m.group(3) or "/")


class HtmlParser:
    """Port of TDLib parse_html (td/telegram/MessageEntity.cpp): same loop over the UTF-8 bytes, same
    error texts and byte offsets. parse() returns (plain text, entities with UTF-16 offsets)."""

    @staticmethod
    def _is_space(c):
        return c in (0x20, 0x09, 0x0D, 0x0A, 0x00, 0x0B)

    @staticmethod
    def _is_hex(c):
        return 0x30 <= c <= 0x39 or 0x61 <= (c | 0x20) <= 0x66

    @staticmethod
    def _decode_entity(b, pos):
        """TDLib decode_html_entity on NUL-terminated bytes: (code or 0, new pos, had ';')."""
        end, res = pos + 1, 0
        if b[pos + 1] == 0x23:
            end += 1
            if b[pos + 2] == 0x78:
                end += 1
                while HtmlParser._is_hex(b[end]):
                    res = res * 16 + int(chr(b[end]), 16)
                    end += 1
            else:
                while 0x30 <= b[end] <= 0x39:
                    res = res * 10 + b[end] - 0x30
                    end += 1
            if res == 0 or res >= 0x10FFFF or end - pos >= 10:
                return 0, pos, False
        else:
            while 0x61 <= (b[end] | 0x20) <= 0x7A:
                end += 1
            res = {b"lt": 0x3C, b"gt": 0x3E, b"amp": 0x26, b"quot": 0x22}.get(bytes(b[pos + 1:end]), 0)
            if not res:
                return 0, pos, False
        if b[end] == 0x3B:
            return res, end + 1, True
        return res, end, False

    @staticmethod
    def parse(text, notes):
        """Port of TDLib parse_html. Returns (plain text, entities). Raises HtmlParseError with the server's
        detail text. notes collects forgiven sloppiness: (kind, detail) for bare '&' and '>'."""
        b = bytearray(text.encode("utf-8")) + b"\0"
        n = len(b) - 1
        out, u16, stack, ents, i = bytearray(), 0, [], [], 0
        while i < n:
            c = b[i]
            if c == 0x26:
                code, np, semi = HtmlParser._decode_entity(b, i)
                if code:
                    if not semi:
                        notes.append(("html_entity_without_semicolon", "character reference without ';' at byte offset %d" % i))
                    u16 += 2 if code > 0xFFFF else 1
                    out += chr(code).encode("utf-8", "surrogatepass")
                    i = np
                    continue
                notes.append(("html_unescaped_amp", "bare '&' at byte offset %d (escape as &amp;)" % i))
            if c != 0x3C:
                if c == 0x3E:
                    notes.append(("html_unescaped_gt", "bare '>' at byte offset %d (escape as &gt;)" % i))
                if c & 0xC0 != 0x80:
                    u16 += 2 if c >= 0xF0 else 1
                out.append(c)
                i += 1
                continue
            begin = i
            i += 1
            if b[i] != 0x2F:  # start tag
                while not HtmlParser._is_space(b[i]) and b[i] != 0x3E:
                    i += 1
                if b[i] == 0:
                    raise HtmlParseError("Unclosed start tag at byte offset %d" % begin)
                tag = bytes(b[begin + 1:i]).lower().decode("utf-8", "replace")
                if tag not in HTML_TAGS:
                    raise HtmlParseError('Unsupported start tag "%s" at byte offset %d' % (tag, begin))
                arg, date = "", 0
                while b[i] != 0x3E:
                    while b[i] != 0 and HtmlParser._is_space(b[i]):
                        i += 1
                    if b[i] == 0x3E:
                        break
                    ab = i
                    while not HtmlParser._is_space(b[i]) and b[i] not in (0x3D, 0x3E, 0x2F, 0x22, 0x27):
                        i += 1
                    name = bytes(b[ab:i])   # attribute names are compared as written (server)
                    if not name:
                        raise HtmlParseError('Empty attribute name in the tag "%s" at byte offset %d' % (tag, begin))
                    while b[i] != 0 and HtmlParser._is_space(b[i]):
                        i += 1
                    if b[i] != 0x3D:
                        if b[i] == 0:
                            raise HtmlParseError('Unclosed start tag "%s" at byte offset %d' % (tag, begin))
                        if tag == "blockquote" and name == b"expandable":
                            arg = "1"
                        continue
                    i += 1
                    while b[i] != 0 and HtmlParser._is_space(b[i]):
                        i += 1
                    if b[i] == 0:
                        raise HtmlParseError('Unclosed start tag "%s" at byte offset %d' % (tag, begin))
                    if b[i] not in (0x22, 0x27):
                        tb = i
                        while (0x30 <= b[i] <= 0x39 or 0x61 <= (b[i] | 0x20) <= 0x7A) or b[i] in (0x2E, 0x2D):
                            i += 1
                        val = bytes(b[tb:i]).lower()
                        if not HtmlParser._is_space(b[i]) and b[i] != 0x3E:
                            raise HtmlParseError("Unexpected end of name token at byte offset %d" % tb)
                    else:
                        q = b[i]
                        i += 1
                        vb = bytearray()
                        while b[i] != q and b[i] != 0:
                            if b[i] == 0x26:
                                code, np, semi = HtmlParser._decode_entity(b, i)
                                if code:
                                    vb += chr(code).encode("utf-8", "surrogatepass")
                                    i = np
                                    continue
                                notes.append(("html_unescaped_amp", "bare '&' in an attribute at byte offset %d" % i))
                            vb.append(b[i])
                            i += 1
                        if b[i] == q:
                            i += 1
                        val = bytes(vb)
                    if b[i] == 0:
                        raise HtmlParseError("Unclosed start tag at byte offset %d" % begin)
                    v = val.decode("utf-8", "replace")
                    if tag == "a" and name == b"href":
                        arg = v
                    elif tag == "code" and name == b"class" and v.startswith("language-"):
                        arg = v[9:]
                    elif tag == "span" and name == b"class" and v.startswith("tg-"):
                        arg = v[3:]
                    elif tag == "tg-emoji" and name == b"emoji-id":
                        arg = v
                    elif tag == "blockquote" and name == b"expandable":
                        arg = "1"
                    elif tag == "tg-time" and name == b"unix":
                        date = td_int(v, -(1 << 31), (1 << 31) - 1)
                    elif tag == "tg-time" and name == b"format":
                        arg = v
                if tag == "span" and arg != "spoiler":
                    raise HtmlParseError('Tag "span" must have class "tg-spoiler" at byte offset %d' % begin)
                stack.append((tag, arg, date, u16, len(out)))
                i += 1
                continue
            # end tag
            if not stack:
                raise HtmlParseError("Unexpected end tag at byte offset %d" % begin)
            while not HtmlParser._is_space(b[i]) and b[i] != 0x3E:
                i += 1
            end_name = bytes(b[begin + 2:i]).lower().decode("utf-8", "replace")
            while HtmlParser._is_space(b[i]) and b[i] != 0:
                i += 1
            if b[i] != 0x3E:
                raise HtmlParseError("Unclosed end tag at byte offset %d" % begin)
            tag, arg, date, start, start_byte = stack[-1]
            if end_name and end_name != tag:
                raise HtmlParseError('Unmatched end tag at byte offset %d, expected "</%s>", found "</%s>"'
                                     % (begin, tag, end_name))
            if u16 > start:
                ln = u16 - start
                simple = {"i": "italic", "em": "italic", "b": "bold", "strong": "bold", "s": "strikethrough",
                          "strike": "strikethrough", "del": "strikethrough", "u": "underline", "ins": "underline",
                          "tg-spoiler": "spoiler", "span": "spoiler"}
                if tag in simple:
                    ents.append({"type": simple[tag], "offset": start, "length": ln})
                elif tag == "tg-emoji":
                    if td_int(arg) <= 0 or not re.fullmatch(r"\d+", arg or ""):
                        raise HtmlParseError("Invalid custom emoji identifier specified")
                    ents.append({"type": "custom_emoji", "offset": start, "length": ln, "custom_emoji_id": arg})
                elif tag == "tg-time":
                    if arg and not re.fullmatch(r"r|w?[dD]?[tT]?", arg):
                        raise HtmlParseError("Invalid date format specified")
                    if date > 0:
                        e = {"type": "date_time", "offset": start, "length": ln, "unix_time": date}
                        if arg:
                            e["date_time_format"] = arg
                        ents.append(e)
                elif tag == "a":
                    url = arg or bytes(out[start_byte:]).decode("utf-8", "replace")
                    m = re.fullmatch(r"tg://user\?id=(\d+)", url.strip())
                    if m:
                        ents.append({"type": "text_mention", "offset": start, "length": ln, "user_id": int(m.group(1))})
                    else:
                        link = checked_link(url)
                        if link:
                            ents.append({"type": "text_link", "offset": start, "length": ln, "url": link})
                        else:
                            notes.append(("link_dropped", "invalid href %r: the link is silently lost" % url))
                elif tag == "pre":
                    last = ents[-1] if ents else None
                    if last and last["type"] == "code" and last["offset"] == start and last["length"] == ln \
                            and last.get("_lang"):
                        last["type"], last["language"] = "pre", last.pop("_lang")
                    else:
                        ents.append({"type": "pre", "offset": start, "length": ln})
                elif tag == "code":
                    last = ents[-1] if ents else None
                    if last and last["type"] == "pre" and last["offset"] == start and last["length"] == ln and arg:
                        last["language"] = arg
                    else:
                        e = {"type": "code", "offset": start, "length": ln}
                        if arg:
                            e["_lang"] = arg
                        ents.append(e)
                elif tag == "blockquote":
                    ents.append({"type": "expandable_blockquote" if arg else "blockquote", "offset": start, "length": ln})
            stack.pop()
            i += 1
        if stack:
            raise HtmlParseError('Can\'t find end tag corresponding to start tag "%s"' % stack[-1][0])
        for e in ents:
            e.pop("_lang", None)
        try:
            plain = bytes(out).decode("utf-8")
        except UnicodeDecodeError:
            raise HtmlParseError("Text contains invalid Unicode characters after decoding HTML entities, check for "
                                 "unmatched surrogate code units")
        return plain, sort_entities(ents)


# ---------------------------------------------------------------- text: TDLib fix_formatted_text port
def _end(e):
    return e["offset"] + e["length"]


def _key(e):
    return (e["offset"], -e["length"], 10 if e["type"] == "pre" and e.get("language") else PRIORITY.get(e["type"], 50))


def sort_entities(ents):
    return sorted(ents, key=_key)


def _kind(e):
    return "pre_code" if e["type"] == "pre" and e.get("language") else e["type"]


def _entities_valid(ents):
    end_pos = {t: -1 for t in SPLITTABLE}
    stack, mask = [], set()
    for e in ents:
        while stack and e["offset"] >= _end(stack[-1]):
            mask.discard(_kind(stack.pop()))
        if stack:
            t = e["type"]
            if _end(e) > _end(stack[-1]) or _kind(e) in mask or stack[-1]["type"] in PRE_TYPES:
                return False
            if t in PRE_TYPES and (mask - BLOCKQUOTES):
                return False
            if (t in CONTINUOUS or t in BLOCKQUOTES) and mask & CONTINUOUS:
                return False
            if t in BLOCKQUOTES and mask & BLOCKQUOTES:
                return False
            if mask & set(SPLITTABLE):
                return False
        if e["type"] in SPLITTABLE:
            if end_pos[e["type"]] >= e["offset"]:
                return False
            end_pos[e["type"]] = _end(e)
        stack.append(e)
        mask.add(_kind(e))
    return True


def _remove_intersecting(ents):
    out, last_end = [], 0
    for e in ents:
        if e["offset"] >= last_end:
            last_end = _end(e)
            out.append(e)
    return out


def _remove_intersecting_blockquote(ents, bqs):
    out, j = [], 0
    for e in ents:
        while j < len(bqs) and _end(bqs[j]) <= e["offset"]:
            j += 1
        if j < len(bqs) and (_end(bqs[j]) < _end(e) or e["offset"] < bqs[j]["offset"] < _end(e)):
            continue
        out.append(e)
    return out


def _split_entities(spl, others):
    """Splittable entities are cut at the borders of other entities and removed inside pre/code; overlapping
    or adjacent ones of one type are merged (TDLib split_entities)."""
    begin = {t: 0 for t in SPLITTABLE}
    endp = {t: 0 for t in SPLITTABLE}
    result, it = [], [0]

    def flush(offset):
        for t in SPLITTABLE:
            if endp[t] != 0 and begin[t] < offset:
                if endp[t] <= offset:
                    result.append({"type": t, "offset": begin[t], "length": endp[t] - begin[t]})
                    begin[t] = endp[t] = 0
                else:
                    result.append({"type": t, "offset": begin[t], "length": offset - begin[t]})
                    begin[t] = offset

    def add_entities(end_offset):
        while it[0] < len(spl):
            e = spl[it[0]]
            if e["offset"] >= end_offset:
                break
            t = e["type"]
            if e["offset"] <= endp[t] and endp[t] != 0:
                endp[t] = max(endp[t], _end(e))
            else:
                flush(e["offset"])
                begin[t], endp[t] = e["offset"], _end(e)
            it[0] += 1
        flush(end_offset)

    stack = []

    def add_offset(offset):
        while stack and offset >= _end(stack[-1]):
            old = len(result)
            add_entities(_end(stack[-1]))
            if stack[-1]["type"] in PRE_TYPES:
                del result[old:]
            stack.pop()
        add_entities(offset)

    for o in others:
        add_offset(o["offset"])
        stack.append(o)
    add_offset(1 << 62)
    return sort_entities(result)


def fix_entities(ents):
    ents = sort_entities(ents)
    if _entities_valid(ents):
        return ents
    cont = [e for e in ents if e["type"] not in SPLITTABLE and e["type"] not in BLOCKQUOTES]
    bqs = [e for e in ents if e["type"] in BLOCKQUOTES]
    spl = [e for e in ents if e["type"] in SPLITTABLE]
    cont = _remove_intersecting(cont)
    if bqs:
        bqs = _remove_intersecting(bqs)
        cont = sort_entities(_remove_intersecting_blockquote(cont, bqs) + bqs)
    if spl:
        spl = _split_entities(spl, cont)
        return sort_entities(cont + spl) if cont else spl
    return cont


def clean_text(text, ents):
    """clean_input_string(_with_entities): control characters -> space, '\\r' and U+2028..U+202E and three
    combining marks removed; entity offsets follow."""
    pos16 = u16_index(text)
    total = pos16[-1]
    for e in ents:
        if e["offset"] > total:
            raise bad("entity begins after the end of the text at UTF-16 offset %d" % e["offset"])
        if _end(e) > total:
            raise bad("entity beginning at UTF-16 offset %d ends after the end of the text at UTF-16 offset %d"
                      % (e["offset"], _end(e)))
    out, newpos, n = [], {}, 0
    for idx, ch in enumerate(text):
        newpos[pos16[idx]] = n
        cp = ord(ch)
        if cp < 32 and ch not in "\n\r":
            ch = " "
        if ch == "\r" or 0x2028 <= cp <= 0x202E or cp in (0x333, 0x33F, 0x30A):
            continue
        out.append(ch)
        n += 2 if cp > 0xFFFF else 1
    newpos[total] = n
    fixed = []
    for e in ents:
        o = newpos.get(e["offset"])
        en = newpos.get(_end(e))
        if o is None or en is None:
            raise bad("entity begins in a middle of a UTF-16 symbol at UTF-16 offset %d" % e["offset"])
        fixed.append(dict(e, offset=o, length=en - o))
    return "".join(out), fixed


def find_entities(text):
    """Auto-detected entities (subset of TDLib find_entities): mentions, bot commands, hashtags, http(s) URLs."""
    idx = u16_index(text)
    found = []

    def add(t, a, b):
        found.append({"type": t, "offset": idx[a], "length": idx[b] - idx[a]})

    for m in re.finditer(r"(?<![\w])@([A-Za-z0-9_]{2,32})(?![\w])", text):
        if len(m.group(1)) >= 4:
            add("mention", m.start(), m.end())
    for m in re.finditer(r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>@])", text):
        add("bot_command", m.start(), m.end())
    for m in re.finditer(r"(?<![\w#])#(?=\w*[^\W\d])\w{1,256}", text):
        add("hashtag", m.start(), m.end())
    for m in re.finditer(r"(?i)\bhttps?://[^\s<>\"]+", text):
        url = m.group(0).rstrip(".,;:!?'\")]")
        add("url", m.start(), m.start() + len(url))
    return sort_entities(found)


def coverage(ents):
    """(type, utf16 position) pairs an entity list formats: shows formatting lost by fix_entities."""
    return {(e["type"], p) for e in ents for p in range(e["offset"], _end(e))}


def finalize_text(text, ents, allow_empty):
    """TDLib fix_formatted_text for a bot's message: clean, fix nesting, trim ' ' and '\\n', auto entities.
    Raises 'text must be non-empty' (the server's wording) when nothing visible is left."""
    text, ents = clean_text(text, ents)
    ents = [e for e in ents if e["length"] > 0 and not (e["type"] == "text_link" and not e.get("url"))]
    ents = fix_entities(ents)
    last = -1
    for i in range(len(text) - 1, -1, -1):
        if text[i] not in " \n":
            last = i
            break
    if last < 0:
        if allow_empty:
            return "", []
        raise bad("text must be non-empty")
    ents = fix_entities(ents)
    text = text[:last + 1]
    limit = u16len(text)
    ents = [dict(e, length=min(e["length"], limit - e["offset"])) for e in ents if e["offset"] < limit]
    ents = sort_entities(ents)
    first_ent = ents[0]["offset"] if ents else len(text)
    k = 0
    while k < first_ent and k < len(text) and text[k] in " \n":
        k += 1
    if k:
        text = text[k:]
        ents = [dict(e, offset=e["offset"] - k) for e in ents]
    # Merge auto-detected entities: existing non-splittable entities win, splittable ones are re-split.
    new = [f for f in find_entities(text)
           if not any(e["type"] not in SPLITTABLE and e["type"] not in BLOCKQUOTES
                      and f["offset"] < _end(e) and e["offset"] < _end(f) for e in ents)]
    if new:
        bqs = [e for e in ents if e["type"] in BLOCKQUOTES]
        new = _remove_intersecting_blockquote(_remove_intersecting(new), bqs)
        cont = sort_entities([e for e in ents if e["type"] not in SPLITTABLE] + new)
        spl = [e for e in ents if e["type"] in SPLITTABLE]
        ents = sort_entities(cont + _split_entities(spl, cont)) if spl else cont
    return text, ents


# ---------------------------------------------------------------- Bot API spec (parameter names)
class ApiSpec:
    """Parameter names and required flags from telegram-bot-api.json (PaulSonOfLars api.json schema)."""

    def __init__(self, path):
        self.methods = {}
        if path:
            with open(path, "rb") as f:
                data = json.load(f)
            for name, m in data["methods"].items():
                self.methods[name] = {f["name"]: {"types": f["types"], "required": f["required"]}
                                      for f in m.get("fields", [])}
        self.by_lower = {n.lower(): n for n in self.methods}


# ---------------------------------------------------------------- rate limiter
class RateLimiter:
    """Telegram's documented guidance as hard limits: per chat (token bucket), per group (20/min), global
    (30/s). Counts sends and edits together. check() returns 0 (and records the send) or seconds to wait."""

    def __init__(self, settings):
        self.settings = settings
        self.buckets = {}                       # chat id -> [tokens, last time]
        self.group_times = collections.defaultdict(collections.deque)
        self.global_times = collections.deque()

    def check(self, chat_id, is_group, now):
        s = self.settings
        rate, burst = float(s["chat_per_second"]), float(s["chat_burst"])
        tokens, last = self.buckets.get(chat_id, (burst, now))
        tokens = min(burst, tokens + (now - last) * rate)
        waits = []
        if tokens < 1.0:
            waits.append((1.0 - tokens) / rate if rate > 0 else 60.0)
        gq = self.group_times[chat_id]
        while gq and gq[0] <= now - 60.0:
            gq.popleft()
        if is_group and len(gq) >= int(s["group_per_minute"]):
            waits.append(gq[0] + 60.0 - now)
        while self.global_times and self.global_times[0] <= now - 1.0:
            self.global_times.popleft()
        if len(self.global_times) >= int(s["global_per_second"]):
            waits.append(self.global_times[0] + 1.0 - now)
        if waits:
            self.buckets[chat_id] = (tokens, now)
            return max(1, math.ceil(max(waits)))
        self.buckets[chat_id] = (tokens - 1.0, now)
        if is_group:
            gq.append(now)
        self.global_times.append(now)
        return 0


# ---------------------------------------------------------------- the fake
class Poll:
    _ids = 0

    def __init__(self, offset, limit, timeout, cursor):
        Poll._ids += 1
        self.id, self.offset, self.limit, self.timeout = Poll._ids, offset, limit, timeout
        self.started, self.mono, self.cursor = time.time(), time.monotonic(), cursor
        self.state = "waiting"   # waiting | superseded | webhook | cut | done


class Store:
    """Chats, users, messages, files, the update queue and the records (violations, requests, transcript)."""

    def __init__(self, args, spec):
        self.args, self.spec = args, spec
        self.cond = threading.Condition(threading.RLock())
        self.token = args.token
        self.bot_id = int(getattr(args, "bot_id", DEFAULT_BOT_ID))
        self.bot_username = getattr(args, "bot_username", DEFAULT_BOT_USERNAME)
        self.bot_first_name = getattr(args, "bot_name", DEFAULT_BOT_FIRST_NAME)
        self.port = None
        self.transcript_file = open(args.transcript, "a", encoding="utf-8") if args.transcript else None
        self.settings = dict(DEFAULT_SETTINGS)
        self.settings["callback_deadline_s"] = args.callback_deadline
        self.settings["callback_retention_s"] *= args.retention_scale
        self.settings["message_retention_s"] *= args.retention_scale
        self.settings["rate_limits"] = not args.no_rate_limits
        self.limiter = RateLimiter(self.settings)
        self.seq = 0                      # the cursor: one per recorded event
        self.users = {}                   # id -> User
        self.chats = {}                   # id -> chat record
        self.messages = {}                # (chat id, message id) -> message record
        self.files = {}                   # file_id -> file record
        self.file_paths = {}              # file_path -> (file_id, expires)
        self.updates = collections.OrderedDict()   # update_id -> update record (all, for /_control/updates)
        self.queue = []                   # pending update ids, oldest first
        self.next_update_id = args.first_update_id
        self.allowed = set(DEFAULT_ALLOWED)
        self.webhook = {"url": "", "max_connections": 0, "set_at": None}
        self.active_poll = None
        self.prev_offset, self.prev_poll_start = None, -100.0
        self.next_conflict_time = 0.0
        self.callbacks = collections.OrderedDict()
        self.next_callback_id = 4382915000000000001
        self.windows = {}                 # chat id -> announced retry window
        self.forced = []                  # POST /_control/rate_limit entries
        self.failing_downloads = 0        # POST /_control/fail_downloads: file downloads answered 502
        self.commands = {}                # (scope key, lang) -> {"scope", "language_code", "commands"}
        self.actions, self.requests, self.violations, self.human_lines = [], [], [], []
        self.polls_total = 0
        self.warned = set()               # (kind, chat) of one-time excusable errors already answered
        self.file_seq = 0
        threading.Thread(target=self._reaper, daemon=True).start()

    # ------------------------------------------------------------ records
    def bump(self):
        self.seq += 1
        self.cond.notify_all()
        return self.seq

    def human(self, line):
        self.human_lines.append({"i": self.bump(), "time": time.time(), "line": line})
        if self.transcript_file:
            self.transcript_file.write(line + "\n")
            self.transcript_file.flush()

    def violation(self, kind, detail, severity="error", **extra):
        v = {"i": self.bump(), "kind": kind, "detail": detail, "severity": severity, "time": time.time()}
        v.update(extra)
        self.violations.append(v)
        self.human("[violation] %s: %s" % (kind, detail))
        return v

    def chat_label(self, chat_id, thread=None):
        c = self.chats.get(chat_id)
        if not c:
            return "[chat %s]" % chat_id
        if c["type"] == "private":
            u = self.users.get(chat_id, {})
            lab = "@%s" % u["username"] if u.get("username") else u.get("first_name", "user")
            s = "[private %s %s" % (lab, chat_id)
        else:
            s = '[%s "%s" %s' % (c["type"], c.get("title") or "", chat_id)
        if thread:
            t = c["topics"].get(thread)
            s += ' / topic %s "%s"' % (thread, t["name"] if t else "?")
        return s + "]"

    # ------------------------------------------------------------ model
    def bot_user(self):
        return {"id": self.bot_id, "is_bot": True, "first_name": self.bot_first_name, "username": self.bot_username}

    def add_user(self, spec):
        uid = int(spec["id"])
        if uid <= 0:
            raise ControlError(400, "user id must be positive")
        u = self.users.get(uid, {"id": uid, "is_bot": False, "first_name": "User%d" % uid})
        for k in ("first_name", "last_name", "username", "language_code", "is_bot"):
            if spec.get(k) is not None:
                u[k] = spec[k]
        self.users[uid] = u
        return u

    def ensure_chat(self, spec, user=None):
        cid = int(spec["id"])
        ctype = spec.get("type") or ("private" if cid > 0 else "supergroup" if cid <= -1000000000000 else "group")
        if ctype not in ("private", "group", "supergroup"):
            raise ControlError(400, "chat.type must be private, group or supergroup")
        if (ctype == "private") != (cid > 0) or (ctype == "supergroup" and cid > -1000000000000):
            raise ControlError(400, "chat id %d does not fit type %s (private > 0, group < 0, supergroup -100...)"
                               % (cid, ctype))
        c = self.chats.get(cid)
        if c is None:
            c = {"id": cid, "type": ctype, "title": None, "username": None, "is_forum": False, "blocked": False,
                 "kicked": False, "migrated_to": None, "migrated_from": None, "next_mid": 1 if ctype != "supergroup" else 2,
                 "topics": {}, "bot_can_manage_topics": True, "last_user": None, "last_bot": None}
            self.chats[cid] = c
        for k in ("title", "username"):
            if spec.get(k) is not None:
                c[k] = spec[k]
        if spec.get("is_forum") is not None:
            if spec["is_forum"] and ctype != "supergroup":
                raise ControlError(400, "only supergroups can be forums")
            c["is_forum"] = bool(spec["is_forum"])
        if spec.get("bot_can_manage_topics") is not None:
            c["bot_can_manage_topics"] = bool(spec["bot_can_manage_topics"])
        if ctype != "private" and not c["title"]:
            c["title"] = "Group %d" % abs(cid)
        if user is not None:
            c["last_user"] = user["id"]
        return c

    def chat_json(self, c):
        if c["type"] == "private":
            u = self.users.get(c["id"], {})
            out = {"id": c["id"], "first_name": u.get("first_name", "")}
            for k in ("last_name", "username"):
                if u.get(k):
                    out[k] = u[k]
            out["type"] = "private"
            return out
        out = {"id": c["id"], "title": c["title"]}
        if c.get("username"):
            out["username"] = c["username"]
        out["type"] = c["type"]
        if c.get("is_forum"):
            out["is_forum"] = True
        return out

    def new_file(self, kind, data, size=None, name=None, mime=None, width=None, height=None):
        self.file_seq += 1
        prefix = {"document": "BQACAgIAAxkBAAI", "photo": "AgACAgIAAxkBAAI", "voice": "AwACAgIAAxkBAAI",
                  "audio": "CQACAgIAAxkBAAI", "video": "BAACAgIAAxkBAAI", "video_note": "DQACAgIAAxkBAAI",
                  "animation": "CgACAgIAAxkBAAI"}[kind]
        fid = prefix + base64.urlsafe_b64encode(secrets.token_bytes(24)).decode().rstrip("=")
        size = len(data) if data is not None else int(size or 0)
        rec = {"file_id": fid, "file_unique_id": "AQAD" + secrets.token_hex(6), "kind": kind, "data": data,
               "size": size, "name": name, "mime": mime, "width": width, "height": height, "seq": self.file_seq,
               "sha256": hashlib.sha256(data).hexdigest() if data is not None else None, "path": None}
        self.files[fid] = rec
        return rec

    def photo_sizes(self, data, width=None, height=None):
        """PhotoSize list smallest first; the last one is the original bytes. The fake cannot re-encode, so
        the smaller sizes carry placeholder bytes (a plugin downloading photo[0] gets the wrong file)."""
        if width is None or height is None:
            width, height = image_size(data) or (1280, 960)
        sizes = []
        for edge in (90, 320, 800):
            if max(width, height) > edge:
                scale = edge / float(max(width, height))
                w, h = max(1, round(width * scale)), max(1, round(height * scale))
                stub = ("fake-telegram thumbnail %dx%d of a %dx%d photo\n" % (w, h, width, height)).encode() * 4
                sizes.append(self.new_file("photo", stub, width=w, height=h))
        sizes.append(self.new_file("photo", data, width=width, height=height))
        return sizes

    def file_json(self, f):
        if f["kind"] == "photo":
            return {"file_id": f["file_id"], "file_unique_id": f["file_unique_id"], "file_size": f["size"],
                    "width": f["width"], "height": f["height"]}
        if f["kind"] == "voice":
            # Voice (telegram-bot-api.json, types.Voice): file_id, file_unique_id, duration, mime_type?, file_size?
            out = {"file_id": f["file_id"], "file_unique_id": f["file_unique_id"], "duration": f["duration"],
                   "mime_type": f["mime"], "file_size": f["size"]}
            return {k: v for k, v in out.items() if v is not None}
        if f["kind"] == "video_note":
            # VideoNote (telegram-bot-api.json, types.VideoNote): file_id, file_unique_id, length, duration,
            # file_size?; no name and no MIME type (a round MPEG4 video).
            out = {"file_id": f["file_id"], "file_unique_id": f["file_unique_id"], "length": f["width"] or 240,
                   "duration": f["duration"], "file_size": f["size"]}
            return {k: v for k, v in out.items() if v is not None}
        out = {"file_name": f["name"], "mime_type": f["mime"], "file_id": f["file_id"],
               "file_unique_id": f["file_unique_id"], "file_size": f["size"]}
        if f["kind"] in ("audio", "video", "animation"):
            # Audio, Video, Animation (telegram-bot-api.json, types.*): a duration; Video and
            # Animation a width and height too.
            out["duration"] = f["duration"]
            if f["kind"] != "audio":
                out.update(width=f["width"] or 640, height=f["height"] or 360)
        return {k: v for k, v in out.items() if v is not None}

    def store_message(self, chat, from_user, from_bot, thread=None, **fields):
        mid = chat["next_mid"]
        chat["next_mid"] += 1
        cur = self.bump()
        m = {"chat_id": chat["id"], "message_id": mid, "from": from_user, "from_bot": from_bot, "date": int(time.time()),
             "thread_id": thread, "kind": "text", "text": None, "entities": [], "html": None, "parse_mode": None,
             "caption": None, "caption_entities": [], "reply_markup": None, "edits": [], "deleted": False,
             "deleted_by": None, "edit_date": None, "document": None, "photo": None, "voice": None, "reply_to": None,
             "service": None, "cursor": cur, "changed_cursor": cur}
        m.update(fields)
        self.messages[(chat["id"], mid)] = m
        if chat["type"] != "private" and from_user.get("is_bot"):
            # privacy mode: a bare /cmd reaches the bot that posted last in the group (spec §13;
            # core.telegram.org/bots/features#privacy-mode). Other bots' messages arrive by injection.
            chat["last_bot"] = from_user["id"]
        return m

    def message_json(self, m, nested=False):
        chat = self.chats[m["chat_id"]]
        out = {"message_id": m["message_id"]}
        if m["thread_id"]:
            out["message_thread_id"] = m["thread_id"]
        out["from"] = dict(m["from"])
        out["chat"] = self.chat_json(chat)
        out["date"] = m["date"]
        if m["edit_date"]:
            out["edit_date"] = m["edit_date"]
        if m["thread_id"] and chat.get("is_forum"):
            out["is_topic_message"] = True
        if not nested:
            rt = m["reply_to"]
            if rt is None and m["thread_id"] and chat.get("is_forum") and m["thread_id"] != m["message_id"]:
                rt = m["thread_id"]   # forum messages "reply" to the topic's creation message
            target = self.messages.get((m["chat_id"], rt)) if rt else None
            if target is not None and not target["deleted"]:
                out["reply_to_message"] = self.message_json(target, nested=True)
        if m["kind"] == "text":
            out["text"] = m["text"]
            if m["entities"]:
                out["entities"] = [self.entity_json(e) for e in m["entities"]]
        elif m["kind"] == "photo":
            out["photo"] = [self.file_json(self.files[f]) for f in m["photo"]]
        elif m["kind"] == "document":
            out["document"] = self.file_json(self.files[m["document"]])
        elif m["kind"] in ("voice",) + MEDIA_KINDS:
            out[m["kind"]] = self.file_json(self.files[m[m["kind"]]])
            if m["kind"] == "animation":
                # types.Message.animation: "For backward compatibility, when this field is set, the
                # document field will also be set".
                out["document"] = self.file_json(dict(self.files[m["animation"]], kind="document"))
        if m.get("media_group_id"):
            out["media_group_id"] = m["media_group_id"]
        if m["kind"] in ("photo", "document", "voice", "audio", "video", "animation") and m["caption"]:
            out["caption"] = m["caption"]
            if m["caption_entities"]:
                out["caption_entities"] = [self.entity_json(e) for e in m["caption_entities"]]
        if m["service"]:
            out.update(m["service"])
        if m["reply_markup"] and "inline_keyboard" in m["reply_markup"]:
            out["reply_markup"] = m["reply_markup"]
        return out

    def entity_json(self, e):
        out = {"offset": e["offset"], "length": e["length"], "type": e["type"]}
        for k in ("url", "language", "custom_emoji_id", "unix_time", "date_time_format"):
            if e.get(k) is not None:
                out[k] = e[k]
        if e["type"] == "text_mention":
            u = self.users.get(e.get("user_id"), {"id": e.get("user_id"), "is_bot": False, "first_name": "User"})
            out["user"] = u
        return out

    # ------------------------------------------------------------ update queue
    def queue_update(self, kind, payload, expires_at, summary):
        """Create an update; allowed_updates is applied now, at creation (server)."""
        if kind not in self.allowed:
            self.human("[updates] %s not queued: excluded by allowed_updates" % kind)
            return None
        uid = self.next_update_id
        self.next_update_id += 1
        rec = {"update_id": uid, "type": kind, "payload": payload, "created": time.time(), "expires_at": expires_at,
               "delivered": 0, "first_delivered_at": None, "last_delivered_at": None, "confirmed_at": None,
               "state": "pending", "summary": summary, "cursor": self.bump(), "callback_query_id": None}
        self.updates[uid] = rec
        self.queue.append(uid)
        return rec

    def expire_updates(self):
        now = time.time()
        keep = []
        for uid in self.queue:
            u = self.updates[uid]
            if u["expires_at"] < now:
                u["state"] = "expired"
                self.bump()
                self.human("[updates] #%d (%s) expired undelivered=%s" % (uid, u["type"], u["delivered"] == 0))
            else:
                keep.append(uid)
        self.queue = keep

    def confirm_below(self, offset):
        keep, done = [], []
        for uid in self.queue:
            if uid < offset:
                u = self.updates[uid]
                u["state"], u["confirmed_at"] = "confirmed", time.time()
                done.append(uid)
            else:
                keep.append(uid)
        if done:
            self.queue = keep
            self.bump()
            self.human("[getUpdates] confirmed #%d..#%d (%d)" % (done[0], done[-1], len(done)))

    def drop_pending(self, reason):
        for uid in self.queue:
            self.updates[uid]["state"] = reason
        n = len(self.queue)
        self.queue = []
        self.bump()
        return n

    def _reaper(self):
        """Background: retention expiry and callback answer deadlines."""
        while True:
            time.sleep(0.1)
            try:
                with self.cond:
                    self.expire_updates()
                    now = time.time()
                    for cb in self.callbacks.values():
                        if cb["answered_at"] is None and not cb["missed"] and now > cb["deadline"]:
                            cb["missed"] = True
                            upd = self.updates.get(cb["update_id"]) if cb["update_id"] else None
                            if upd and upd["first_delivered_at"] and upd["first_delivered_at"] < cb["deadline"]:
                                self.violation("callback_not_answered", "callback query %s (data %r) was delivered but "
                                               "not answered within %.1fs" % (cb["id"], cb["data"], self.settings["callback_deadline_s"]),
                                               callback_query_id=cb["id"])
                            else:
                                self.bump()
            except Exception:
                traceback.print_exc()


class BotApi(Store):
    """The Bot API methods (m_<name>) and the checks shared by them."""

    # ------------------------------------------------------------ request entry point
    def handle_api(self, http_method, token, method_raw, args, files, ctype, parse_error=None):
        t0 = time.time()
        # When the request came, before it waited for the store's lock: on a loaded machine that
        # wait can last longer than the reaction time, and a request sent before the client heard
        # of a 429 must not be taken for one that ignored it.
        arrived = time.monotonic()
        method = None
        status, body, headers = 200, None, {}
        req = {"http_method": http_method, "method": method_raw, "params": self._sanitize(args, files),
               "time": t0, "content_type": ctype}
        try:
            with self.cond:
                if parse_error is not None:   # the HTTP body is read before anything else
                    raise parse_error
                if not token or token[0] == "0" or len(token) > 80 or "/" in token or ":" not in token:
                    raise ApiError(401, "Unauthorized: invalid token specified", vkind=None)
                if not re.fullmatch(r"-?\d+", token.split(":", 1)[0]):
                    raise ApiError(421, "Misdirected Request: unallowed token specified", vkind=None)
                if int(token.split(":", 1)[0]) <= 0:
                    raise ApiError(401, "Unauthorized: invalid token specified", vkind=None)
                if token != self.token:
                    raise ApiError(401, "Unauthorized", vkind=None)
                method = self.spec.by_lower.get(method_raw.lower()) or EMULATED_LOWER.get(method_raw.lower())
                handler = getattr(self, "m_" + method, None) if method else None
                if method is None:
                    raise ApiError(404, "Not Found: method not found", vkind="unknown_method")
                req["method"] = method
                missing = self.check_params(method, args, files)
                if handler is None:
                    raise bad("method %s is not emulated by fake_telegram" % method, vkind="method_not_emulated")
                if method in CHAT_METHODS:
                    self.note_window_arrival(method, args.get("chat_id", ""), arrived)
                result = handler(args, files)
                for name in missing:   # Telegram went ahead without it: record what it forgave
                    self.violation("missing_parameter", "%s: required parameter %r is missing (Telegram went "
                                   "ahead anyway)" % (method, name), method=method, parameter=name)
                if isinstance(result, tuple):
                    result, desc = result
                    body = {"ok": True, "result": result, "description": desc}
                else:
                    body = {"ok": True, "result": result}
        except DropConnection:
            with self.cond:
                req.update(status=None, description="connection dropped (cut_polls)", duration_s=round(time.time() - t0, 3))
                req["i"] = self.bump()
                self.requests.append(req)
            raise
        except ApiError as e:
            status, headers = e.code, dict(e.headers)
            body = {"ok": False, "error_code": e.code, "description": e.description}
            if e.parameters:
                body["parameters"] = e.parameters
            if e.code == 429 and e.parameters:
                headers["Retry-After"] = str(e.parameters["retry_after"])
            with self.cond:
                if e.vkind:
                    self.violation(e.vkind, "%s -> %d %s" % (method or method_raw, e.code, e.description),
                                   method=method or method_raw, status=e.code)
                elif method != "getUpdates":
                    self.human("[api] %s -> %d %s" % (method or method_raw, e.code, e.description))
        with self.cond:
            req.update(status=status, description=body.get("description") if not body.get("ok") else None,
                       duration_s=round(time.time() - t0, 3))
            req["i"] = self.bump()
            self.requests.append(req)
        return status, headers, body

    def _sanitize(self, args, files):
        out = dict(args)
        for name, f in files.items():
            out[name] = {"file": f["filename"], "size": len(f["data"]), "content_type": f.get("content_type")}
        return out

    def check_params(self, method, args, files):
        """Unknown parameters are ignored by Telegram (a typo silently changes behaviour): record them.
        Also type-check what the spec types clearly (Integer, Boolean, JSON objects/arrays)."""
        fields = self.spec.methods.get(method)
        if fields is None:
            return []
        attached = {v[len("attach://"):] for v in args.values() if isinstance(v, str) and v.startswith("attach://")}
        for name, val in args.items():
            f = fields.get(name)
            if f is None:
                self.violation("unknown_parameter", "%s: parameter %r is not in the Bot API (ignored by Telegram)"
                               % (method, name), method=method, parameter=name)
                continue
            types = f["types"]
            if types == ["Integer"] and not re.fullmatch(r"-?\d+", val.strip()):
                self.violation("parameter_type", "%s: %s=%r is not an Integer (Telegram reads it as %d)"
                               % (method, name, val, td_int(val)), "warning", method=method, parameter=name)
            elif types == ["Boolean"] and val.strip().lower() not in ("true", "false", "1", "0", "yes", "no"):
                self.violation("parameter_type", "%s: %s=%r is not a Boolean (Telegram reads it as false)"
                               % (method, name, val), "warning", method=method, parameter=name)
            elif not any(t in ("Integer", "String", "Boolean", "Float", "InputFile") for t in types):
                try:
                    json.loads(val)
                except ValueError:
                    self.violation("parameter_type", "%s: %s is not JSON-serialized (%r)" % (method, name, val[:80]),
                                   method=method, parameter=name)
        for name in files:
            if name not in fields and name not in attached:
                self.violation("unknown_parameter", "%s: file part %r is neither a parameter nor attach:// referenced"
                               % (method, name), method=method, parameter=name)
        return [n for n, f in fields.items() if f["required"] and not args.get(n) and n not in files]

    # ------------------------------------------------------------ chats, windows and the send gate
    def check_chat(self, chat_id_str, write=True):
        if not chat_id_str:
            raise bad("chat_id is empty")
        if chat_id_str.startswith("@"):
            c = next((c for c in self.chats.values() if c.get("username") and "@" + c["username"] == chat_id_str), None)
        else:
            c = self.chats.get(td_int(chat_id_str))
        if c is None:
            raise bad("chat not found")
        if c["migrated_to"] and write:
            first = ("migrated", c["id"]) not in self.warned
            self.warned.add(("migrated", c["id"]))
            raise ApiError(400, "Bad Request: group chat was upgraded to a supergroup chat",
                           {"migrate_to_chat_id": c["migrated_to"]}, None if first else "migrated_chat_reused")
        if c["kicked"] and write:
            first = ("kicked", c["id"]) not in self.warned
            self.warned.add(("kicked", c["id"]))
            raise ApiError(403, "Forbidden: bot was kicked from the %s chat" % ("group" if c["type"] == "group" else "supergroup"),
                           vkind=None if first else "kicked_chat_reused")
        return c

    def check_thread(self, chat, thread_str):
        tid = td_int(thread_str, 0, (1 << 31) - 1) if thread_str else 0
        if tid <= 0:
            return None
        if chat.get("is_forum"):
            if tid == 1 or tid not in chat["topics"]:   # General (1) is addressed by omitting the id
                raise bad("message thread not found")
            return tid
        m = self.messages.get((chat["id"], tid))
        if chat["type"] == "supergroup" and m is not None:
            return tid   # a reply thread in a non-forum supergroup
        raise bad("message thread not found")

    def note_window_arrival(self, method, chat_id_str, arrived=None):
        cid = td_int(chat_id_str) if chat_id_str and not chat_id_str.startswith("@") else None
        w = self.windows.get(cid)
        now = time.monotonic() if arrived is None else arrived
        if w and now < w["until"]:
            if now - w["announced"] > RETRY_REACTION_S and w["until"] - now > RETRY_SLACK_S:
                self.violation("retry_after_ignored", "%s to chat %s %.2fs before the announced retry_after=%d ended"
                               % (method, cid, w["until"] - now, w["retry_after"]), method=method, chat_id=cid)

    def gate(self, chat, method, counts):
        """Server-side checks that follow local validation: blocked user, retry windows, rate limits."""
        if chat["blocked"]:
            first = ("blocked", chat["id"]) not in self.warned
            self.warned.add(("blocked", chat["id"]))
            raise ApiError(403, "Forbidden: bot was blocked by the user", vkind=None if first else "blocked_chat_reused")
        now = time.monotonic()
        cid = chat["id"]
        w = self.windows.get(cid)
        if w and now < w["until"]:
            raise self._429(math.ceil(w["until"] - now))   # inside an announced window: the time left
        for f in self.forced:
            if f["count"] > 0 and f.get("method") in (None, method) and (f["chat_id"] is None or f["chat_id"] == cid):
                f["count"] -= 1
                return self._raise_429(cid, f["retry_after"], method, forced=True)
        if counts and self.settings["rate_limits"]:
            ra = self.limiter.check(cid, chat["type"] != "private", now)
            if ra:
                self.violation("rate_limit_exceeded", "%s to chat %s exceeded the flood limits (retry_after %d)"
                               % (method, cid, ra), method=method, chat_id=cid)
                return self._raise_429(cid, ra, method, forced=False)

    @staticmethod
    def _429(ra):
        ra = max(1, int(ra))
        return ApiError(429, "Too Many Requests: retry after %d" % ra, {"retry_after": ra}, vkind=None)

    def _raise_429(self, cid, ra, method, forced):
        ra = max(1, int(ra))
        self.windows[cid] = {"until": time.monotonic() + ra, "announced": time.monotonic(), "retry_after": ra,
                             "forced": forced}
        self.human("[429] %s %s retry_after %d%s" % (method, self.chat_label(cid), ra, " (forced)" if forced else ""))
        raise self._429(ra)

    # ------------------------------------------------------------ text and keyboards
    def input_text(self, raw, parse_mode, entities_arg, method, what="text"):
        """Client::get_formatted_text: raw-size check, parse_mode, HTML parsing. Returns (text, entities)
        before TDLib's fixing and trimming (finalize_text)."""
        if len(raw.encode("utf-8")) > MAX_RAW_TEXT:
            raise bad("text is too long")
        pm = (parse_mode or "").lower()
        if raw and pm and pm != "none":
            if pm == "html":
                notes = []
                try:
                    plain, ents = HtmlParser.parse(raw, notes)
                except HtmlParseError as e:
                    raise bad("can't parse entities: %s" % e)
                for kind, detail in notes:
                    self.violation(kind, "%s %s: %s" % (method, what, detail), method=method)
                lost = coverage(ents) - coverage(fix_entities(ents))
                if lost:
                    self.violation("html_formatting_dropped", "%s %s: nesting not allowed by Telegram, formatting "
                                   "silently dropped: %s" % (method, what, ", ".join(sorted({t for t, _ in lost}))),
                                   method=method)
                if entities_arg:
                    self.violation("parse_mode_and_entities", "%s: both parse_mode and %s entities given; the entities "
                                   "are ignored" % (method, what), method=method)
                return plain, ents
            if pm in ("markdown", "markdownv2"):
                self.violation("markdown_not_emulated", "%s: parse_mode %s is not emulated; text kept as plain text"
                               % (method, parse_mode), method=method)
                return raw, []
            raise bad("unsupported parse_mode")
        ents = []
        if entities_arg:
            try:
                arr = json.loads(entities_arg)
            except ValueError:
                arr = None
            if not isinstance(arr, list):
                self.violation("parameter_type", "%s: %s entities are not a JSON array (ignored)" % (method, what),
                               method=method)
                arr = []
            for e in arr:
                if not isinstance(e, dict) or e.get("type") not in PRIORITY:
                    continue
                ent = {"type": e["type"], "offset": td_int(str(e.get("offset", 0))),
                       "length": td_int(str(e.get("length", 0)))}
                if ent["offset"] < 0 or ent["length"] < 0:
                    raise bad("can't parse MessageEntity: invalid offset or length")
                for k in ("url", "language", "custom_emoji_id"):
                    if e.get(k):
                        ent[k] = str(e[k])
                if ent["type"] == "text_mention":
                    ent["user_id"] = td_int(str((e.get("user") or {}).get("id", 0)))
                ents.append(ent)
        return raw, ents

    def parse_markup(self, raw, inline_only=False, method=""):
        """Client::get_reply_markup + the server's button checks. Returns None, {"inline_keyboard": ...} or the
        other keyboard object as given."""
        if not raw:
            return None
        try:
            v = json.loads(raw)
        except ValueError:
            raise bad("can't parse reply keyboard markup JSON object")
        if not isinstance(v, dict):
            raise bad("object expected as reply markup")
        if "inline_keyboard" in v:
            kb = v["inline_keyboard"]
            if not isinstance(kb, list):
                raise bad('field "inline_keyboard" must be of type Array')
            rows, total = [], 0
            for row in kb:
                if not isinstance(row, list):
                    raise bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
                out_row = []
                for btn in row:
                    out_row.append(self._button(btn, method))
                    total += 1
                if out_row:
                    rows.append(out_row)
            if rows:
                if total > 100:
                    raise bad("reply markup is too long")
                return {"inline_keyboard": rows}
        if inline_only:
            if any(k in v for k in ("keyboard", "remove_keyboard", "force_reply")):
                self.violation("markup_not_inline", "%s: only inline keyboards can be edited; markup ignored" % method,
                               method=method)
            return None
        if "keyboard" in v or "remove_keyboard" in v or "force_reply" in v:
            return v
        return None

    def _button(self, btn, method):
        pre = "can't parse inline keyboard button: "
        if not isinstance(btn, dict):
            raise bad(pre + "InlineKeyboardButton must be an Object")
        if "text" not in btn:
            raise bad(pre + 'Can\'t find field "text"')
        if not isinstance(btn["text"], (str, int, float)):
            raise bad(pre + 'Field "text" must be of type String')
        text = str(btn["text"])
        actions = [k for k in ("url", "callback_data", "callback_game", "pay", "switch_inline_query",
                               "switch_inline_query_chosen_chat", "switch_inline_query_current_chat", "login_url",
                               "web_app", "copy_text")
                   if k in btn and not (k in ("url", "callback_data") and btn[k] in ("", None))]
        if not actions:
            raise bad(pre + "Text buttons are unallowed in the inline keyboard")
        if len(actions) > 1:
            self.violation("button_multiple_actions", "%s: button %r has %s; Telegram uses only %s"
                           % (method, text, "+".join(actions), actions[0]), method=method)
        if not text:
            raise bad("inline keyboard button text must be non-empty")
        out = {"text": text}
        for k in ("style", "icon_custom_emoji_id"):
            if btn.get(k) is not None:
                out[k] = btn[k]
        a = actions[0]
        if a == "callback_data":
            data = str(btn["callback_data"])
            if len(data.encode("utf-8")) > 64:
                raise bad("BUTTON_DATA_INVALID")
            out["callback_data"] = data
        elif a == "url":
            if not checked_link(str(btn["url"])):
                raise bad("inline keyboard button URL '%s' is invalid: Wrong HTTP URL" % btn["url"])
            out["url"] = str(btn["url"])
        else:
            out[a] = btn[a]
        return out

    def finalize(self, raw_text, ents, allow_empty, limit, too_long):
        text, ents = finalize_text(raw_text, ents, allow_empty)
        if len(text) > limit:
            raise bad(too_long)
        return text, ents

    # ------------------------------------------------------------ Bot API methods
    def m_getMe(self, a, f):
        u = self.bot_user()
        u.update({"can_join_groups": True, "can_read_all_group_messages": not self.settings["privacy_mode"],
                  "supports_inline_queries": False, "can_connect_to_business": False, "has_main_web_app": False,
                  "has_topics_enabled": False, "allows_users_to_create_topics": False})
        return u

    def m_getUpdates(self, a, f):
        if self.webhook["url"]:
            self.conflict("Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
                          "delete the webhook first")
        offset = td_int(a.get("offset"), -(1 << 31), (1 << 31) - 1)
        limit = max(1, min(100, td_int(a["limit"], -(1 << 31), (1 << 31) - 1))) if a.get("limit") else 100
        timeout = max(0, min(50, td_int(a["timeout"], -(1 << 31), (1 << 31) - 1))) if a.get("timeout") else 0
        self.polls_total += 1
        if a.get("allowed_updates"):
            self.set_allowed(a["allowed_updates"])
        now = time.monotonic()
        if self.settings["poll_throttle"] and offset == self.prev_offset:
            if timeout < 3 and now < self.prev_poll_start + 3.0:
                timeout = 3
            if now < self.prev_poll_start + 0.5:
                limit = 1
        self.prev_offset, self.prev_poll_start = offset, now
        self.expire_updates()
        if offset < 0:
            self.violation("negative_offset", "getUpdates offset=%d forgets every queued update but the last %d"
                           % (offset, -offset))
            drop = self.queue[:max(0, len(self.queue) + offset)]
            for uid in drop:
                self.updates[uid]["state"] = "cleared"
            self.queue = self.queue[len(drop):]
        elif offset > 0:
            if offset > self.next_update_id + 10:
                self.violation("offset_in_future", "getUpdates offset=%d is beyond the last update_id %d: nothing "
                               "is confirmed" % (offset, self.next_update_id - 1))
            else:
                self.confirm_below(offset)
        batch = self.queue[:limit]
        if not batch and timeout > 0:
            poll = Poll(offset, limit, timeout, self.seq)
            if self.active_poll is not None and self.active_poll.state == "waiting":
                self.active_poll.state = "superseded"
            self.active_poll = poll
            self.bump()
            deadline = poll.mono + timeout
            try:
                while True:
                    if poll.state == "superseded":
                        self.conflict("Conflict: terminated by other getUpdates request; make sure that only one "
                                      "bot instance is running")
                    if poll.state == "webhook":
                        self.conflict("Conflict: terminated by setWebhook request")
                    if poll.state == "cut":
                        raise DropConnection()
                    if self.queue:
                        break
                    rem = deadline - time.monotonic()
                    if rem <= 0:
                        break
                    self.cond.wait(min(rem, 0.5))
            finally:
                if poll.state == "waiting":
                    poll.state = "done"
                if self.active_poll is poll:
                    self.active_poll = None
                self.bump()
            self.expire_updates()
            batch = self.queue[:limit]
        return self.deliver(batch)

    def conflict(self, desc):
        """409s for getUpdates are spaced at least 3 s apart (server); a sooner one is delayed 3 s."""
        now = time.monotonic()
        if self.settings["conflict_spacing"] and now < self.next_conflict_time:
            end = now + 3.0
            while time.monotonic() < end:
                self.cond.wait(end - time.monotonic())
        else:
            self.next_conflict_time = now + 3.0
        self.human("[getUpdates] 409 %s" % desc)
        raise ApiError(409, desc, vkind=None)

    def deliver(self, batch):
        now = time.time()
        out = []
        for uid in batch:
            u = self.updates[uid]
            u["delivered"] += 1
            u["first_delivered_at"] = u["first_delivered_at"] or now
            u["last_delivered_at"] = now
            out.append(dict({"update_id": uid}, **{u["type"]: u["payload"]}))
        if batch:
            self.bump()
            redeliv = sum(1 for uid in batch if self.updates[uid]["delivered"] > 1)
            self.human("[getUpdates] delivered %d update(s) #%d..#%d%s" % (len(batch), batch[0], batch[-1],
                       " (%d again)" % redeliv if redeliv else ""))
        return out

    def set_allowed(self, raw):
        try:
            v = json.loads(raw)
        except ValueError:
            self.violation("parameter_type", "allowed_updates is not a JSON array (ignored): %r" % raw[:80])
            return
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.violation("parameter_type", "allowed_updates must be an array of strings (ignored)")
            return
        kinds = {x.lower() for x in v if x.lower() in UPDATE_KINDS}
        for x in v:
            if x.lower() not in UPDATE_KINDS:
                self.violation("unknown_update_type", "allowed_updates contains unknown type %r" % x, "warning")
        new = kinds or set(DEFAULT_ALLOWED)
        if new != self.allowed:
            self.allowed = new
            self.human("[getUpdates] allowed_updates = %s" % ("default" if new == DEFAULT_ALLOWED else ",".join(sorted(new))))

    def m_setWebhook(self, a, f):
        url = a.get("url", "")
        if url and not url.lower().startswith("https://"):
            raise bad("bad webhook: An HTTPS URL must be provided for webhook")
        if a.get("allowed_updates"):
            self.set_allowed(a["allowed_updates"])
        return self.set_webhook(url, td_bool(a.get("drop_pending_updates")), td_int(a.get("max_connections"), 0, 100))

    def set_webhook(self, url, drop, max_conn=0):
        if url == self.webhook["url"] and not drop:
            return True, "Webhook is already set" if url else "Webhook is already deleted"
        was = self.webhook["url"]
        self.webhook = {"url": url, "max_connections": (max_conn or 40) if url else 0, "set_at": time.time() if url else None}
        if url and self.active_poll is not None and self.active_poll.state == "waiting":
            self.active_poll.state = "webhook"
        if drop:
            n = self.drop_pending("dropped")
            self.human("[webhook] drop_pending_updates: %d update(s) thrown away" % n)
        self.human("[webhook] %s" % ("set to %s (the fake delivers nothing to it)" % url if url else "deleted"))
        self.bump()
        if url:
            return True, "Webhook was set"
        return True, "Webhook was deleted" if was else "Webhook is already deleted"

    def m_deleteWebhook(self, a, f):
        drop = td_bool(a.get("drop_pending_updates"))
        if drop:
            self.violation("drop_pending_updates", "deleteWebhook(drop_pending_updates=true) throws away %d queued "
                           "update(s) sent while the bot was down" % len(self.queue))
        return self.set_webhook("", drop)

    def m_getWebhookInfo(self, a, f):
        self.expire_updates()
        out = {"url": self.webhook["url"], "has_custom_certificate": False, "pending_update_count": len(self.queue)}
        if self.webhook["url"]:
            out["max_connections"] = self.webhook["max_connections"]
            out["ip_address"] = "127.0.0.1"
        if self.allowed != DEFAULT_ALLOWED:
            out["allowed_updates"] = [k for k in UPDATE_KINDS if k in self.allowed]
        return out

    def _send_context(self, a, method):
        """do_send_message + check_message_topic: reply parameters, markup, chat, topic, reply target."""
        rp = None
        if a.get("reply_parameters"):
            try:
                rp = json.loads(a["reply_parameters"])
            except ValueError:
                raise bad("can't parse reply parameters JSON object")
            if not isinstance(rp, dict):
                raise bad("object expected as reply parameters")
        elif a.get("reply_to_message_id"):
            rp = {"message_id": td_int(a["reply_to_message_id"]),
                  "allow_sending_without_reply": td_bool(a.get("allow_sending_without_reply"))}
        markup = self.parse_markup(a.get("reply_markup"), method=method)
        chat = self.check_chat(a.get("chat_id", ""))
        thread = self.check_thread(chat, a.get("message_thread_id"))
        reply_to = None
        if rp and td_int(str(rp.get("message_id", 0))) > 0:
            rchat = chat
            if rp.get("chat_id") not in (None, "", chat["id"], str(chat["id"])):
                rchat = self.check_chat(str(rp["chat_id"]), write=False)
            target = self.messages.get((rchat["id"], td_int(str(rp["message_id"]))))
            if target is None or target["deleted"]:
                if not rp.get("allow_sending_without_reply"):
                    raise bad("message to be replied not found")
            elif rchat is chat:
                reply_to = target["message_id"]
                if thread is None and target["thread_id"]:
                    thread = target["thread_id"]   # replies stay in the replied-to message's topic
        return chat, thread, reply_to, markup

    def _post(self, chat, thread, method, **fields):
        m = self.store_message(chat, self.bot_user(), True, thread=thread, **fields)
        what = m["text"] if m["kind"] == "text" else "[%s %s] %s" % (
            m["kind"], self.files[m["document"]]["name"] if m["kind"] == "document" else "", m["caption"] or "")
        self.human("%s bot sent #%d: %s%s" % (self.chat_label(chat["id"], thread), m["message_id"], one_line(what),
                                              self.buttons_label(m["reply_markup"])))
        return self.message_json(m)

    def buttons_label(self, markup):
        if not markup or "inline_keyboard" not in markup:
            return ""
        return " [buttons: %s]" % ", ".join("%s(%s)" % (b["text"], b.get("callback_data", b.get("url", "")))
                                            for row in markup["inline_keyboard"] for b in row)

    def m_sendMessage(self, a, f):
        raw = a.get("text", "")
        if not raw:
            raise bad("message text is empty")
        plain, ents = self.input_text(raw, a.get("parse_mode"), a.get("entities"), "sendMessage")
        chat, thread, reply_to, markup = self._send_context(a, "sendMessage")
        text, ents = self.finalize(plain, ents, False, TEXT_MAX, "message is too long")
        self.gate(chat, "sendMessage", True)
        return self._post(chat, thread, "sendMessage", kind="text", text=text, entities=ents, html=raw,
                          parse_mode=a.get("parse_mode"), reply_markup=markup, reply_to=reply_to)

    def _caption(self, a, method):
        raw = a.get("caption", "")
        if not raw:
            return "", [], raw
        plain, ents = self.input_text(raw, a.get("parse_mode"), a.get("caption_entities"), method, "caption")
        return plain, ents, raw

    def _input_file(self, a, files, field, kind):
        """get_input_file: a string value is a file_id/URL (or attach://name); otherwise the part named
        like the parameter with a filename."""
        val = a.get(field, "")
        part = None
        if val and not val.startswith("attach://"):
            if re.match(r"(?i)https?://", val):
                self.violation("url_upload_not_emulated", "%s by HTTP URL is not emulated" % field)
                raise bad("failed to get HTTP URL content")
            rec = self.files.get(val)
            if rec is None or rec["kind"] != kind:
                raise bad("wrong file identifier/HTTP URL specified")
            return rec, None
        part = files.get(val[len("attach://"):] if val else field)
        if part is None:
            raise bad("there is no %s in the request" % field)
        return None, part

    def m_sendDocument(self, a, f):
        rec, part = self._input_file(a, f, "document", "document")
        cap, cents, craw = self._caption(a, "sendDocument")
        chat, thread, reply_to, markup = self._send_context(a, "sendDocument")
        if part is not None and len(part["data"]) > MAX_UPLOAD:
            raise ApiError(413, "Request Entity Too Large")
        cap, cents = self.finalize(cap, cents, True, CAPTION_MAX, "message caption is too long")
        self.gate(chat, "sendDocument", True)
        if rec is None:
            name = part["filename"] or "document"
            mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
            rec = self.new_file("document", part["data"], name=name, mime=mime)
        return self._post(chat, thread, "sendDocument", kind="document", document=rec["file_id"], caption=cap,
                          caption_entities=cents, html=craw or None, parse_mode=a.get("parse_mode"),
                          reply_markup=markup, reply_to=reply_to)

    def m_sendPhoto(self, a, f):
        rec, part = self._input_file(a, f, "photo", "photo")
        cap, cents, craw = self._caption(a, "sendPhoto")
        chat, thread, reply_to, markup = self._send_context(a, "sendPhoto")
        sizes = None
        if part is not None:
            data = part["data"]
            if len(data) > MAX_PHOTO:
                raise bad("PHOTO_SAVE_FILE_INVALID")
            dims = image_size(data)
            if dims is None:
                raise bad("IMAGE_PROCESS_FAILED")
            w, h = dims
            if w <= 0 or h <= 0 or w + h > 10000 or max(w, h) > 20 * min(w, h):
                raise bad("PHOTO_INVALID_DIMENSIONS")
        cap, cents = self.finalize(cap, cents, True, CAPTION_MAX, "message caption is too long")
        self.gate(chat, "sendPhoto", True)
        if part is not None:
            sizes = [r["file_id"] for r in self.photo_sizes(part["data"], *image_size(part["data"]))]
        else:
            sizes = [rec["file_id"]]
        return self._post(chat, thread, "sendPhoto", kind="photo", photo=sizes, caption=cap, caption_entities=cents,
                          html=craw or None, parse_mode=a.get("parse_mode"), reply_markup=markup, reply_to=reply_to)

    def _target(self, a, what):
        if not a.get("chat_id") and td_int(a.get("message_id"), 0) <= 0:
            if not a.get("inline_message_id"):
                raise bad("message identifier is not specified")
            raise bad("inline messages are not emulated by fake_telegram", vkind="method_not_emulated")
        chat = self.check_chat(a.get("chat_id", ""))
        mid = td_int(a.get("message_id"), -(1 << 31), (1 << 31) - 1)
        if mid <= 0:
            raise bad("message identifier is not specified")
        m = self.messages.get((chat["id"], mid))
        if m is None or m["deleted"]:
            # A message the user deleted: the bot could not know. One that never existed: a bot bug.
            raise bad("%s not found" % what, vkind=None if m is not None and m["deleted_by"] == "user" else "rejected")
        return chat, m

    def _not_modified(self):
        return bad("message is not modified: specified new message content and reply markup are exactly the same "
                   "as a current content and reply markup of the message", vkind="message_not_modified")

    def m_editMessageText(self, a, f):
        raw = a.get("text", "")
        if not raw:
            raise bad("message text is empty")
        plain, ents = self.input_text(raw, a.get("parse_mode"), a.get("entities"), "editMessageText")
        markup = self.parse_markup(a.get("reply_markup"), inline_only=True, method="editMessageText")
        chat, m = self._target(a, "message to edit")
        if not m["from_bot"]:
            raise bad("message can't be edited")
        if m["kind"] != "text":
            raise bad("there is no text in the message to edit")
        text, ents = self.finalize(plain, ents, False, TEXT_MAX, "message is too long")
        if text == m["text"] and ents == m["entities"] and markup == m["reply_markup"]:
            raise self._not_modified()
        self.gate(chat, "editMessageText", True)
        if m["reply_markup"] and not markup:
            self.human("%s keyboard of #%d removed by an edit without reply_markup"
                       % (self.chat_label(chat["id"], m["thread_id"]), m["message_id"]))
        self._apply_edit(m, "text", text=text, entities=ents, html=raw, parse_mode=a.get("parse_mode"),
                         reply_markup=markup)
        return self.message_json(m)

    def m_editMessageReplyMarkup(self, a, f):
        markup = self.parse_markup(a.get("reply_markup"), inline_only=True, method="editMessageReplyMarkup")
        chat, m = self._target(a, "message to edit")
        if not m["from_bot"]:
            raise bad("message can't be edited")
        if markup == m["reply_markup"]:
            raise self._not_modified()
        self.gate(chat, "editMessageReplyMarkup", True)
        self._apply_edit(m, "reply_markup", reply_markup=markup)
        return self.message_json(m)

    def _apply_edit(self, m, kind, **fields):
        m.update(fields)
        m["edit_date"] = int(time.time())
        m["changed_cursor"] = self.bump()
        m["edits"].append({"kind": kind, "text": m["text"], "html": m["html"], "entities": m["entities"],
                           "reply_markup": m["reply_markup"], "date": m["edit_date"], "cursor": m["changed_cursor"]})
        self.human("%s bot edited #%d%s: %s%s" % (self.chat_label(m["chat_id"], m["thread_id"]), m["message_id"],
                   " (buttons)" if kind == "reply_markup" else "", one_line(m["text"] or m["caption"] or ""),
                   self.buttons_label(m["reply_markup"])))

    def m_deleteMessage(self, a, f):
        chat, m = self._target(a, "message to delete")
        too_old = time.time() - m["date"] > 48 * 3600
        if too_old or (not m["from_bot"] and chat["type"] != "private" and not self.settings["bot_is_admin"]):
            raise bad("message can't be deleted")
        self.gate(chat, "deleteMessage", False)
        m["deleted"], m["deleted_by"] = True, "bot"
        m["changed_cursor"] = self.bump()
        self.human("%s bot deleted #%d" % (self.chat_label(chat["id"], m["thread_id"]), m["message_id"]))
        return True

    def m_sendChatAction(self, a, f):
        action = (a.get("action") or "").lower()
        if action not in CHAT_ACTIONS:
            raise bad("wrong parameter action in request")
        chat = self.check_chat(a.get("chat_id", ""))
        thread = td_int(a.get("message_thread_id"), 0, (1 << 31) - 1) or None
        if thread and chat.get("is_forum") and thread not in chat["topics"]:
            self.violation("chat_action_unknown_thread", "sendChatAction to unknown topic %d in %s" % (thread, chat["id"]))
        self.gate(chat, "sendChatAction", False)
        rec = {"i": self.bump(), "chat_id": chat["id"], "action": action, "message_thread_id": thread, "time": time.time()}
        self.actions.append(rec)
        self.human("%s bot is %s" % (self.chat_label(chat["id"], thread), action.replace("_", " ")))
        return True

    def m_answerCallbackQuery(self, a, f):
        cid = a.get("callback_query_id", "")
        cb = self.callbacks.get(cid)
        too_old = bad("query is too old and response timeout expired or query ID is invalid", vkind=None)
        if cb is None:
            too_old.vkind = "callback_query_invalid"
            raise too_old
        text = a.get("text", "")
        if len(text) > 200:
            raise bad("MESSAGE_TOO_LONG")
        now = time.time()
        ans = {"text": text, "show_alert": td_bool(a.get("show_alert")), "url": a.get("url") or None,
               "cache_time": td_int(a.get("cache_time"), 0, 24 * 30 * 3600), "time": now,
               "latency_s": round(now - cb["created"], 3)}
        if cb["answered_at"] is not None:
            cb["extra_answers"].append(dict(ans, late=now > cb["deadline"]))
            self.bump()
            too_old.vkind = "callback_answered_twice"
            raise too_old
        if now > cb["deadline"]:
            cb["answered_at"], cb["answer"], cb["late"] = now, ans, True
            self.bump()
            self.human("%s bot answered callback %s too late (%.1fs)" % (self.chat_label(cb["chat_id"]), cid, now - cb["created"]))
            too_old.vkind = "callback_answer_late"
            raise too_old
        cb["answered_at"], cb["answer"], cb["late"] = now, ans, False
        self.bump()
        self.human("%s bot answered callback %s%s%s" % (self.chat_label(cb["chat_id"]), cid,
                   ': "%s"' % one_line(text) if text else "", " (alert)" if ans["show_alert"] else ""))
        return True

    def m_getFile(self, a, f):
        fid = a.get("file_id", "")
        if not fid:
            raise bad("file_id not specified")
        rec = self.files.get(fid)
        if rec is None:
            raise bad("invalid file_id")
        if rec["size"] > MAX_DOWNLOAD:
            raise bad("file is too big")
        if rec["path"] is None:
            if rec["kind"] == "voice":
                rec["path"] = "voice/file_%d.oga" % rec["seq"]   # as Telegram names voice notes' paths
            elif rec["kind"] in MEDIA_KINDS:
                folder = {"audio": "music", "video": "videos", "video_note": "video_notes", "animation": "animations"}[rec["kind"]]
                ext = os.path.splitext(rec["name"] or "")[1] or (".mp3" if rec["kind"] == "audio" else ".mp4")
                rec["path"] = "%s/file_%d%s" % (folder, rec["seq"], ext)
            else:
                ext = os.path.splitext(rec["name"] or "")[1] if rec["kind"] == "document" else ".jpg"
                rec["path"] = "%s/file_%d%s" % ("documents" if rec["kind"] == "document" else "photos", rec["seq"], ext)
        self.file_paths[rec["path"]] = (fid, time.time() + self.settings["file_link_ttl_s"])
        return {"file_id": fid, "file_unique_id": rec["file_unique_id"], "file_size": rec["size"], "file_path": rec["path"]}

    def download(self, token, path):
        with self.cond:
            if token != self.token:
                return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}, None
            if self.failing_downloads > 0:
                # §14: 5xx from the front (502/504) happen; a client retries with backoff. The
                # link itself lasts at least an hour (§9).
                self.failing_downloads -= 1
                self.human("[file] download %s: 502 (forced)" % path)
                return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}, None
            ent = self.file_paths.get(urllib.parse.unquote(path))
            if ent is None or ent[1] < time.time():
                return 404, {"ok": False, "error_code": 404, "description": "Not Found"}, None
            rec = self.files[ent[0]]
            self.human("[file] download %s (%d bytes)" % (rec["path"], rec["size"]))
            data = rec["data"] if rec["data"] is not None else bytes(rec["size"])
            return 200, None, data

    def _scope(self, a):
        raw = a.get("scope", "")
        if not raw:
            return "default", {"type": "default"}
        try:
            v = json.loads(raw)
        except ValueError:
            raise bad("can't parse BotCommandScope JSON object")
        pre = "can't parse BotCommandScope: "
        if not isinstance(v, dict):
            raise bad(pre + "BotCommandScope must be an Object")
        t = v.get("type")
        if not isinstance(t, str):
            raise bad(pre + 'Can\'t find field "type"')
        if t in ("default", "all_private_chats", "all_group_chats", "all_chat_administrators"):
            return t, {"type": t}
        if t not in ("chat", "chat_administrators", "chat_member"):
            raise bad(pre + "Unsupported type specified")
        if "chat_id" not in v:
            raise bad(pre + 'Can\'t find field "chat_id"')
        if str(v["chat_id"]) == "":
            raise bad(pre + "Empty chat_id specified")
        chat = self.check_chat(str(v["chat_id"]), write=False)
        if t != "chat_member":
            return "%s:%d" % (t, chat["id"]), {"type": t, "chat_id": chat["id"]}
        uid = td_int(str(v.get("user_id", "")))
        if uid <= 0:
            raise bad(pre + "Invalid user_id specified")
        return "chat_member:%d:%d" % (chat["id"], uid), {"type": t, "chat_id": chat["id"], "user_id": uid}

    def _lang(self, a):
        lang = a.get("language_code", "")
        if lang and not re.fullmatch(r"[a-z]{2}", lang):
            raise bad("invalid language code specified")
        return lang

    def m_setMyCommands(self, a, f):
        # §14: any method may be answered 429 with retry_after; this one names no chat, so a
        # forced 429 for it (`/rate_limit {method: "setMyCommands"}`) is its own, no chat's.
        for forced in self.forced:
            if forced["count"] > 0 and forced.get("method") == "setMyCommands":
                forced["count"] -= 1
                self.human("[429] setMyCommands retry_after %d (forced)" % forced["retry_after"])
                raise self._429(forced["retry_after"])
        cmds = []
        if a.get("commands"):
            try:
                v = json.loads(a["commands"])
            except ValueError:
                raise bad("can't parse commands JSON object")
            if not isinstance(v, list):
                raise bad("expected an Array of BotCommand")
            for c in v:
                if not isinstance(c, dict):
                    raise bad("can't parse BotCommand: expected an Object")
                for k in ("command", "description"):
                    if k not in c:
                        raise bad('can\'t parse BotCommand: Can\'t find field "%s"' % k)
                cmds.append((str(c["command"]), str(c["description"])))
        key, scope = self._scope(a)
        lang = self._lang(a)
        out = []
        for cmd, desc in cmds:
            cmd = cmd.strip()
            if cmd.startswith("/"):
                cmd = cmd[1:]
            if not cmd:
                raise bad("command must be non-empty")
            if len(cmd) > 32:
                raise bad("command length must not exceed 32")
            desc = desc.strip()
            if not desc:
                raise bad("command description must be non-empty")
            if len(desc) > 256:
                raise bad("command description length must not exceed 256")
            if not re.fullmatch(r"[a-z0-9_]+", cmd):
                raise bad("BOT_COMMAND_INVALID")
            out.append({"command": cmd, "description": desc})
        if len(out) > 100:
            raise bad("BOT_COMMANDS_TOO_MUCH")
        if out:
            self.commands[(key, lang)] = {"scope": scope, "language_code": lang, "commands": out}
        else:
            self.commands.pop((key, lang), None)
        self.bump()
        self.human("[commands] %s%s: %s" % (key, "/" + lang if lang else "", " ".join("/" + c["command"] for c in out) or "(cleared)"))
        return True

    def m_getMyCommands(self, a, f):
        key, _ = self._scope(a)
        ent = self.commands.get((key, self._lang(a)))
        return [dict(c) for c in ent["commands"]] if ent else []

    def m_deleteMyCommands(self, a, f):
        key, _ = self._scope(a)
        self.commands.pop((key, self._lang(a)), None)
        self.bump()
        return True

    def m_createForumTopic(self, a, f):
        chat = self.check_chat(a.get("chat_id", ""))
        if not chat.get("is_forum"):
            raise bad("the chat is not a forum")
        if not (self.settings["bot_is_admin"] and chat["bot_can_manage_topics"]):
            raise bad("not enough rights to create a topic")
        name, truncated = self.clean_topic_name(a.get("name", ""))
        if not name:
            raise bad("name must be non-empty")
        if truncated:
            self.violation("topic_name_truncated", "createForumTopic: name longer than 128 characters was truncated")
        color = td_int(a.get("icon_color"), -(1 << 31), (1 << 31) - 1) if a.get("icon_color") else 0
        if color < 0 or color > 0xFFFFFF or (color and color not in ICON_COLORS):
            raise bad("invalid icon color specified")
        self.gate(chat, "createForumTopic", True)
        t = self.make_topic(chat, name, color or ICON_COLORS[0], a.get("icon_custom_emoji_id") or None, self.bot_user(), True)
        out = {"message_thread_id": t["message_thread_id"], "name": t["name"], "icon_color": t["icon_color"]}
        if t["icon_custom_emoji_id"]:
            out["icon_custom_emoji_id"] = t["icon_custom_emoji_id"]
        return out

    def m_getChatMember(self, a, f):
        """Client::process_get_chat_member_query: user_id first (get_user_id: <= 0 or no digits -> "Invalid
        user_id specified"), then check_chat with AccessRights::Read for the bot itself and ReadMembers for
        anyone else, then TDLib DialogParticipantManager::do_get_dialog_participant. Not a send: no rate
        limit, no retry window, no blocked check (check_chat_access needs write rights for those)."""
        uid = td_int(a.get("user_id"))
        if uid <= 0:
            raise bad("invalid user_id specified")
        chat = self.check_chat(a.get("chat_id", ""), write=False)
        if not (uid == self.bot_id and chat["type"] == "group"):
            # check_chat_access: ReadMembers needs write access in a basic group (migrated -> 400 upgraded,
            # kicked -> 403); a supergroup that banned the bot answers 403 for every access right, even Read
            self.check_chat(a.get("chat_id", ""))
        if chat["type"] == "private":
            # do_get_dialog_participant, DialogType::User: the bot and the peer are members, nobody else
            if uid == self.bot_id:
                return {"user": self.bot_user(), "status": "member"}
            if uid == chat["id"]:
                return {"user": dict(self.users.get(uid) or {"id": uid, "is_bot": False, "first_name": ""}),
                        "status": "member"}
            raise bad("member not found")
        if uid == self.bot_id:
            bot = self.bot_user()
            if chat["kicked"]:   # basic group only (a kicked supergroup answered 403 above)
                return {"user": bot, "status": "kicked", "until_date": 0}
            if not self.settings["bot_is_admin"]:
                return {"user": bot, "status": "member"}
            # JsonChatMember + json_store_administrator_rights, in server order: can_pin_messages and
            # can_manage_tags for groups and supergroups, can_manage_topics for supergroups only, and the
            # legacy can_manage_voice_chats copy. The rights are a fake's choice (README §5).
            out = {"user": bot, "status": "administrator", "can_be_edited": False, "can_manage_chat": True,
                   "can_change_info": True, "can_delete_messages": True, "can_invite_users": True,
                   "can_restrict_members": True, "can_pin_messages": True}
            if chat["type"] == "supergroup":
                out["can_manage_topics"] = bool(chat["bot_can_manage_topics"])
            out.update({"can_promote_members": False, "can_manage_video_chats": True, "can_post_stories": False,
                        "can_edit_stories": False, "can_delete_stories": False, "can_manage_tags": False,
                        "is_anonymous": False, "can_manage_voice_chats": True})
            return out
        user = self.users.get(uid)
        if user is None:
            # never seen: TDLib ChatManager::finish_get_chat_participant gives "left" for a basic group, then
            # finish_get_dialog_participant fails without a known user -> "Member not found"; a supergroup asks
            # the server (channels.getParticipant), whose PARTICIPANT_ID_INVALID is a best guess (README §5;
            # tdlib/telegram-bot-api#802)
            raise bad("member not found" if chat["type"] == "group" else "PARTICIPANT_ID_INVALID")
        chats = {chat["id"], chat.get("migrated_from")}   # members of a basic group stay in its supergroup
        wrote = any(m["chat_id"] in chats and not m["from_bot"] and m["from"]["id"] == uid
                    for m in self.messages.values())
        # a user who wrote there is a member; anyone else the bot knows is "left" (TDLib: not a participant /
        # USER_NOT_PARTICIPANT -> DialogParticipant::left). Leaving, bans and restrictions are not emulated.
        return {"user": dict(user), "status": "member" if wrote else "left"}

    @staticmethod
    def clean_topic_name(name):
        """td clean_name: collapse spaces/newlines, trim, at most 128 characters."""
        name = re.sub(r"[ \n\u00a0]+", " ", name).strip()
        return name[:128].strip(), len(name) > 128

    def make_topic(self, chat, name, color, emoji, creator, by_bot):
        svc = {"forum_topic_created": {"name": name, "icon_color": color}}
        if emoji:
            svc["forum_topic_created"]["icon_custom_emoji_id"] = emoji
        m = self.store_message(chat, creator, by_bot, kind="service", service=svc)
        m["thread_id"] = m["message_id"]   # a topic's id is the id of its creation message
        t = {"chat_id": chat["id"], "message_thread_id": m["message_id"], "name": name, "icon_color": color,
             "icon_custom_emoji_id": emoji, "created_by": "bot" if by_bot else "user", "date": m["date"],
             "i": m["cursor"]}
        chat["topics"][m["message_id"]] = t
        self.human("%s %s created topic %d \"%s\"" % (self.chat_label(chat["id"]), "bot" if by_bot else "user",
                                                     t["message_thread_id"], name))
        return t


class FakeTelegram(BotApi):
    """BotApi plus the /_control API used by tests."""

    # ------------------------------------------------------------ control API: injecting
    def c_inject_message(self, b):
        frm = b.get("from")
        if not isinstance(frm, dict) or "id" not in frm:
            raise ControlError(400, "from {id, first_name} is required")
        user = self.add_user(frm)
        cs = b.get("chat") or {"id": user["id"], "type": "private"}
        if "id" not in cs:
            cs = dict(cs, id=user["id"])
        old = self.chats.get(int(cs["id"]))
        if old and old["migrated_to"]:
            raise ControlError(400, "chat %s was migrated to %s" % (old["id"], old["migrated_to"]))
        chat = self.ensure_chat(cs, user)
        if chat["type"] == "private" and chat["blocked"]:
            self._set_blocked(chat, False, user)   # writing to a blocked bot means restarting it
        thread = b.get("message_thread_id")
        if thread is not None:
            thread = int(thread)
            if chat.get("is_forum") and thread not in chat["topics"]:
                raise ControlError(400, "no topic %d in chat %d (create it with POST /_control/topics)" % (thread, chat["id"]))
            if not chat.get("is_forum") and (chat["id"], thread) not in self.messages:
                raise ControlError(400, "message_thread_id %d: no such message in a non-forum chat" % thread)
        reply_to = b.get("reply_to_message_id")
        if reply_to is not None:
            t = self.messages.get((chat["id"], int(reply_to)))
            if t is None:
                raise ControlError(400, "reply_to_message_id %s not found in chat %s" % (reply_to, chat["id"]))
            reply_to = t["message_id"]
            thread = thread or t["thread_id"]
        fields = {"reply_to": reply_to}
        if b.get("media_group_id") is not None:
            # An album (spec §5, Message.media_group_id): its photos and files arrive as several
            # messages carrying one id, the caption on the one it was typed with.
            if not any(b.get(k) is not None for k in ("photo", "document", "audio", "video")):
                raise ControlError(400, "media_group_id needs photo, document, audio or video (an album holds only those)")
            fields["media_group_id"] = str(b["media_group_id"])
        files = {}
        if b.get("photo") is not None:
            p = b["photo"]
            data = base64.b64decode(p.get("content_b64", ""))
            sizes = self.photo_sizes(data, p.get("width"), p.get("height"))
            fields.update(kind="photo", photo=[s["file_id"] for s in sizes])
            files["photo"] = fields["photo"]
        elif b.get("document") is not None:
            d = b["document"]
            if "file_name" not in d:
                raise ControlError(400, "document.file_name is required")
            data = base64.b64decode(d["content_b64"]) if d.get("content_b64") is not None else None
            if data is None and d.get("size") is None:
                raise ControlError(400, "document needs content_b64 or size")
            rec = self.new_file("document", data, size=d.get("size"), name=d["file_name"],
                                mime=d.get("mime_type") or mimetypes.guess_type(d["file_name"])[0] or "application/octet-stream")
            fields.update(kind="document", document=rec["file_id"])
            files["document"] = rec["file_id"]
        elif b.get("voice") is not None:
            # A voice note (spec §5, Message.voice): OGG/Opus bytes, how long it plays, an optional caption.
            v = b["voice"]
            if v.get("content_b64") is None or v.get("duration") is None:
                raise ControlError(400, "voice needs content_b64 and duration")
            rec = self.new_file("voice", base64.b64decode(v["content_b64"]), mime=v.get("mime_type", "audio/ogg"))
            rec["duration"] = int(v["duration"])
            fields.update(kind="voice", voice=rec["file_id"])
            files["voice"] = rec["file_id"]
        elif any(b.get(k) is not None for k in MEDIA_KINDS):
            # Audio, video, a round video note or an animation (spec §5, "a media field + caption?"):
            # bytes or only a size, how long it plays, an optional name and MIME type.
            kind = next(k for k in MEDIA_KINDS if b.get(k) is not None)
            v = b[kind]
            data = base64.b64decode(v["content_b64"]) if v.get("content_b64") is not None else None
            if data is None and v.get("size") is None:
                raise ControlError(400, "%s needs content_b64 or size" % kind)
            default = {"audio": "audio/mpeg", "video": "video/mp4", "animation": "video/mp4", "video_note": None}[kind]
            rec = self.new_file(kind, data, size=v.get("size"), name=None if kind == "video_note" else v.get("file_name"),
                                mime=None if kind == "video_note" else v.get("mime_type", default))
            rec["duration"] = int(v.get("duration", 3))
            fields.update(kind=kind, **{kind: rec["file_id"]})
            files[kind] = rec["file_id"]
        elif b.get("text") is None:
            raise ControlError(400, "text, photo, document, voice, audio, video, video_note or animation is required")
        if fields.get("kind") in ("photo", "document", "voice", "audio", "video", "animation"):
            cap = b.get("caption") or ""
            fields.update(caption=cap or None, caption_entities=self._user_entities(cap, b.get("entities")))
        elif fields.get("kind") == "video_note":
            if b.get("caption"):
                raise ControlError(400, "a video note has no caption (types.Message)")
        else:
            fields.update(kind="text", text=b["text"], entities=self._user_entities(b["text"], b.get("entities")))
        m = self.store_message(chat, dict(user), False, thread=thread, **fields)
        if b.get("date") is not None:
            m["date"] = int(b["date"])
        payload = self.message_json(m)
        what = m["text"] if m["kind"] == "text" else "[%s] %s" % (m["kind"], m["caption"] or "")
        self.human("%s user %s: %s" % (self.chat_label(chat["id"], thread),
                   user.get("username") or user["first_name"], one_line(what)))
        upd, reason = None, None
        if chat["type"] != "private" and user.get("is_bot"):
            # spec §13: even admins and bots with privacy off get every message except other bots'
            reason = "from_bot"
            self.human("[updates] message #%d not delivered: from another bot" % m["message_id"])
        elif self._privacy_hides(chat, m):
            reason = "privacy_mode"
            self.human("[updates] message #%d not delivered: privacy mode" % m["message_id"])
        else:
            upd = self.queue_update("message", payload, m["date"] + self.settings["message_retention_s"],
                                    "message %d/%d" % (chat["id"], m["message_id"]))
            reason = None if upd else "allowed_updates"
        return {"update_id": upd["update_id"] if upd else None, "queued": upd is not None, "reason": reason,
                "message_id": m["message_id"], "chat_id": chat["id"], "message_thread_id": m["thread_id"],
                "files": files, "message": payload}

    def _user_entities(self, text, given):
        if given is not None:
            return [dict(e) for e in given]
        return find_entities(text) if text else []

    def _privacy_hides(self, chat, m):
        """Spec §13 and core.telegram.org/bots/features#privacy-mode: private chats are delivered in full;
        bot admins and bots with privacy off get every group message; otherwise a group message reaches
        the bot only if it is a /cmd@this_bot, a bare /cmd while this bot is the last bot that posted in
        the group, a reply to this bot's message, or a service message. A plain @mention is not enough
        (spec §13, community)."""
        if chat["type"] == "private" or not self.settings["privacy_mode"] or self.settings["bot_is_admin"]:
            return False
        if m["kind"] == "service":
            return False
        text = m["text"] or m["caption"] or ""
        cmd = re.match(r"/[A-Za-z0-9_]{1,64}(@([A-Za-z0-9_]+))?", text)
        if cmd:
            if cmd.group(2):
                if cmd.group(2).lower() == self.bot_username.lower():
                    return False
            elif chat.get("last_bot") == self.bot_id:
                return False
        target = self.messages.get((chat["id"], m["reply_to"])) if m["reply_to"] else None
        return not (target and target["from_bot"])

    def c_edit_message(self, b):
        m = self.messages.get((int(b["chat_id"]), int(b["message_id"])))
        if m is None or m["from_bot"]:
            raise ControlError(400, "no user message %s/%s" % (b["chat_id"], b["message_id"]))
        if m["kind"] == "text" and b.get("text") is not None:
            m["text"], m["entities"] = b["text"], self._user_entities(b["text"], b.get("entities"))
        elif b.get("caption") is not None:
            m["caption"], m["caption_entities"] = b["caption"], self._user_entities(b["caption"], b.get("entities"))
        else:
            raise ControlError(400, "text (or caption for media) is required")
        m["edit_date"] = int(time.time())
        m["changed_cursor"] = self.bump()
        m["edits"].append({"kind": "user_edit", "text": m["text"], "caption": m["caption"], "date": m["edit_date"],
                           "cursor": m["changed_cursor"]})
        self.human("%s user edited #%d: %s" % (self.chat_label(m["chat_id"], m["thread_id"]), m["message_id"],
                                              one_line(m["text"] or m["caption"])))
        upd = self.queue_update("edited_message", self.message_json(m), m["edit_date"] + self.settings["message_retention_s"],
                                "edited_message %d/%d" % (m["chat_id"], m["message_id"]))
        return {"update_id": upd["update_id"] if upd else None, "queued": upd is not None}

    def c_delete_message(self, b):
        m = self.messages.get((int(b["chat_id"]), int(b["message_id"])))
        if m is None:
            raise ControlError(404, "no message %s/%s" % (b["chat_id"], b["message_id"]))
        m["deleted"], m["deleted_by"] = True, "user"
        m["changed_cursor"] = self.bump()
        self.human("%s user deleted #%d (Telegram sends no update for this)" % (self.chat_label(m["chat_id"]), m["message_id"]))
        return {"deleted": True}

    def c_callback(self, b):
        user = self.add_user(b.get("from") or {})
        chat = self.chats.get(int(b["chat_id"]))
        if chat is None:
            raise ControlError(400, "unknown chat %s" % b["chat_id"])
        m = self.messages.get((chat["id"], int(b["message_id"])))
        data = b.get("data")
        if not b.get("force"):
            if m is None or m["deleted"]:
                raise ControlError(400, "message %s/%s does not exist (force:true to press anyway)" % (chat["id"], b["message_id"]))
            datas = [x.get("callback_data") for row in (m["reply_markup"] or {}).get("inline_keyboard", []) for x in row]
            if data not in datas:
                raise ControlError(400, "message %s/%s has no button with callback_data %r (has %r)"
                                   % (chat["id"], m["message_id"], data, datas))
        cqid = str(self.next_callback_id)
        self.next_callback_id += 7919
        if m is not None and not m["deleted"]:
            msg = self.message_json(m)
        else:
            msg = {"chat": self.chat_json(chat), "message_id": int(b["message_id"]), "date": 0}
        payload = {"id": cqid, "from": dict(user), "message": msg,
                   "chat_instance": str(abs(hash((chat["id"], self.bot_id))) % (1 << 62))}
        if data is not None:
            payload["data"] = data
        now = time.time()
        cb = {"id": cqid, "chat_id": chat["id"], "message_id": int(b["message_id"]), "from_id": user["id"], "data": data,
              "created": now, "deadline": now + float(self.settings["callback_deadline_s"]), "answered_at": None,
              "answer": None, "late": None, "missed": False, "extra_answers": [], "update_id": None, "i": self.bump()}
        self.callbacks[cqid] = cb
        label = next((x["text"] for row in ((m or {}).get("reply_markup") or {}).get("inline_keyboard", []) for x in row
                      if x.get("callback_data") == data), "?")
        self.human("%s click %s -> %s (%s) cq=%s" % (self.chat_label(chat["id"], m["thread_id"] if m else None),
                   user.get("username") or user["first_name"], label, data, cqid))
        upd = self.queue_update("callback_query", payload, now + self.settings["callback_retention_s"], "callback %s" % cqid)
        if upd:
            cb["update_id"] = upd["update_id"]
            upd["callback_query_id"] = cqid
        return {"update_id": upd["update_id"] if upd else None, "callback_query_id": cqid, "queued": upd is not None}

    def _set_blocked(self, chat, blocked, user=None):
        if chat["type"] == "private":
            chat["blocked"] = blocked
            old, new = ("member", "kicked") if blocked else ("kicked", "member")
        else:
            chat["kicked"] = blocked
            old, new = ("member", "kicked") if blocked else ("left", "member")
        for k in [k for k in self.warned if k[1] == chat["id"]]:
            self.warned.discard(k)
        actor = user or self.users.get(chat["id"]) or self.users.get(chat.get("last_user")) or \
            {"id": 777000, "is_bot": False, "first_name": "Telegram"}
        now = int(time.time())
        bot = self.bot_user()
        payload = {"chat": self.chat_json(chat), "from": dict(actor), "date": now,
                   "old_chat_member": {"user": bot, "status": old},
                   "new_chat_member": dict({"user": bot, "status": new}, **({"until_date": 0} if new == "kicked" else {}))}
        self.human("%s %s the bot" % (self.chat_label(chat["id"]), ("blocked" if chat["type"] == "private" else "kicked")
                                      if blocked else ("unblocked" if chat["type"] == "private" else "re-added")))
        return self.queue_update("my_chat_member", payload, now + self.settings["message_retention_s"],
                                 "my_chat_member %d %s" % (chat["id"], new))

    def c_migrate(self, b):
        chat = self.chats.get(int(b["chat_id"]))
        if chat is None or chat["type"] != "group" or chat["migrated_to"]:
            raise ControlError(400, "chat_id must be a basic group that was not migrated yet")
        new_id = int(b.get("new_chat_id") or -(1000000000000 + abs(chat["id"]) % 10 ** 10))
        actor = self.add_user(b["from"]) if b.get("from") else (self.users.get(chat.get("last_user")) or
                                                                {"id": 777000, "is_bot": False, "first_name": "Telegram"})
        sg = self.ensure_chat({"id": new_id, "type": "supergroup", "title": chat["title"]})
        sg["migrated_from"] = chat["id"]
        m1 = self.store_message(chat, dict(actor), False, kind="service", service={"migrate_to_chat_id": new_id})
        chat["migrated_to"] = new_id
        m2 = self.store_message(sg, dict(actor), False, kind="service", service={"migrate_from_chat_id": chat["id"]})
        exp = time.time() + self.settings["message_retention_s"]
        u1 = self.queue_update("message", self.message_json(m1), exp, "migrate_to %d" % new_id)
        u2 = self.queue_update("message", self.message_json(m2), exp, "migrate_from %d" % chat["id"])
        self.human("%s upgraded to supergroup %d" % (self.chat_label(chat["id"]), new_id))
        return {"new_chat_id": new_id, "update_ids": [u["update_id"] for u in (u1, u2) if u]}

    # ------------------------------------------------------------ control API: reading
    def message_view(self, m):
        v = {"message_id": m["message_id"], "chat_id": m["chat_id"], "message_thread_id": m["thread_id"],
             "from_bot": m["from_bot"], "from_id": m["from"]["id"], "kind": m["kind"], "text": m["text"],
             "html": m["html"], "parse_mode": m["parse_mode"], "entities": [self.entity_json(e) for e in m["entities"]],
             "caption": m["caption"], "caption_entities": [self.entity_json(e) for e in m["caption_entities"]],
             "reply_markup": m["reply_markup"], "reply_to_message_id": m["reply_to"], "date": m["date"],
             "edit_date": m["edit_date"], "edits": m["edits"], "edit_count": len(m["edits"]), "deleted": m["deleted"],
             "deleted_by": m["deleted_by"], "service": m["service"], "cursor": m["cursor"],
             "changed_cursor": m["changed_cursor"], "document": None, "photo": None}
        if m["document"]:
            f = self.files[m["document"]]
            v["document"] = {"file_id": f["file_id"], "file_name": f["name"], "mime_type": f["mime"],
                             "size": f["size"], "sha256": f["sha256"]}
        if m["photo"]:
            v["photo"] = [{"file_id": f["file_id"], "width": f["width"], "height": f["height"], "size": f["size"],
                           "sha256": f["sha256"]} for f in (self.files[x] for x in m["photo"])]
        return v

    def list_messages(self, q):
        out = []
        for m in self.messages.values():
            if q.get("chat_id") and m["chat_id"] != int(q["chat_id"]):
                continue
            if q.get("thread_id") and m["thread_id"] != int(q["thread_id"]):
                continue
            if q.get("from") == "bot" and not m["from_bot"] or q.get("from") == "user" and m["from_bot"]:
                continue
            if q.get("include_deleted", "1") in ("0", "false") and m["deleted"]:
                continue
            if m["kind"] == "service" and q.get("include_service", "0") not in ("1", "true"):
                continue
            out.append(self.message_view(m))
        out.sort(key=lambda v: (v["chat_id"], v["message_id"]))
        return out

    def update_view(self, u, payload=False):
        v = {k: u[k] for k in ("update_id", "type", "created", "expires_at", "delivered", "first_delivered_at",
                               "last_delivered_at", "confirmed_at", "state", "summary", "callback_query_id", "cursor")}
        v["confirmed"] = u["state"] == "confirmed"
        if payload:
            v["payload"] = u["payload"]
        return v

    def callback_view(self, cb):
        ans = cb["answer"] or {}
        return {"id": cb["id"], "chat_id": cb["chat_id"], "message_id": cb["message_id"], "from_id": cb["from_id"],
                "data": cb["data"], "created": cb["created"], "deadline": cb["deadline"], "answered": cb["answered_at"] is not None,
                "text": ans.get("text"), "show_alert": ans.get("show_alert"), "url": ans.get("url"),
                "when": cb["answered_at"], "latency_s": ans.get("latency_s"), "late": cb["late"], "missed": cb["missed"],
                "extra_answers": cb["extra_answers"], "update_id": cb["update_id"], "i": cb["i"]}

    def poll_view(self):
        p = self.active_poll
        if p is None or p.state != "waiting":
            return None
        return {"poll_id": p.id, "offset": p.offset, "limit": p.limit, "timeout": p.timeout, "started": p.started,
                "cursor": p.cursor}

    def _pred(self, q):
        what = q.get("for", "message")
        since = int(q.get("since", 0) or 0)
        count = int(q.get("count", 1) or 1)
        contains = q.get("contains")

        def ok_text(s):
            return contains is None or contains in (s or "")

        def enough(hits):
            return hits if len(hits) >= count else None

        if what == "message":
            qq = dict(q, include_deleted=q.get("include_deleted", "0"))
            return lambda: enough([v for v in self.list_messages(qq) if v["changed_cursor"] >= since
                                   and ok_text((v["text"] or "") + (v["caption"] or ""))])
        if what == "callback_answer":
            cid = q.get("id")
            return lambda: (self.callback_view(self.callbacks[cid]) if cid in self.callbacks
                            and self.callbacks[cid]["answered_at"] is not None else None)
        if what == "poll":
            return lambda: (self.poll_view() if self.poll_view() and self.poll_view()["cursor"] >= since else None)
        if what == "confirmed":
            uid = int(q["update_id"])
            return lambda: self.update_view(self.updates[uid]) if uid in self.updates and \
                self.updates[uid]["state"] == "confirmed" else None
        if what == "delivered":
            uid = int(q["update_id"])
            return lambda: self.update_view(self.updates[uid]) if uid in self.updates and \
                self.updates[uid]["delivered"] > 0 else None
        if what == "request":
            return lambda: enough([r for r in self.requests if r["i"] >= since
                                   and (not q.get("method") or r["method"] == q["method"])
                                   and (not q.get("status") or str(r["status"]) == q["status"])])
        if what == "violation":
            return lambda: enough([v for v in self.violations if v["i"] >= since
                                   and (not q.get("kind") or v["kind"] == q["kind"]) and ok_text(v["detail"])])
        if what == "action":
            return lambda: enough([x for x in self.actions if x["i"] >= since
                                   and (not q.get("chat_id") or x["chat_id"] == int(q["chat_id"]))
                                   and (not q.get("action") or x["action"] == q["action"])])
        if what == "transcript":
            return lambda: enough([h for h in self.human_lines if h["i"] >= since and ok_text(h["line"])])
        raise ControlError(400, "unknown wait kind %r" % what)

    def c_wait(self, q):
        timeout = min(float(q.get("timeout", 10)), 300.0)
        deadline = time.monotonic() + timeout
        with self.cond:
            pred = self._pred(q)
            while True:
                r = pred()
                if r is not None:
                    return 200, {"ok": True, "timeout": False, "result": r, "cursor": self.seq}
                rem = deadline - time.monotonic()
                if rem <= 0:
                    return 408, {"ok": False, "timeout": True, "error": "timeout after %.1fs waiting for %s"
                                 % (timeout, q.get("for", "message")), "cursor": self.seq}
                self.cond.wait(min(rem, 0.25))

    def since(self, items, q):
        s = int(q.get("since", 0) or 0)
        return [x for x in items if x["i"] >= s]

    def control(self, method, sub, q, b):
        if method == "GET":
            if sub == "/health":
                return {"ok": True, "port": self.port, "base": "http://127.0.0.1:%d" % self.port, "bot": self.bot_user(),
                        "spec_loaded": bool(self.spec.methods)}
            if sub == "/cursor":
                return {}
            if sub == "/messages":
                return {"messages": self.list_messages(q)}
            if sub == "/message":
                m = self.messages.get((int(q["chat_id"]), int(q["message_id"])))
                if m is None:
                    raise ControlError(404, "no such message")
                return {"message": self.message_view(m)}
            if sub == "/updates":
                return {"updates": [self.update_view(u, q.get("payload") == "1") for u in self.updates.values()],
                        "pending": list(self.queue),
                        "allowed_updates": sorted(self.allowed), "next_update_id": self.next_update_id,
                        "poll": self.poll_view(), "polls_total": self.polls_total}
            if sub == "/callbacks":
                return {"callbacks": [self.callback_view(c) for c in self.callbacks.values()]}
            if sub == "/actions":
                return {"actions": self.since([x for x in self.actions if not q.get("chat_id") or x["chat_id"] == int(q["chat_id"])], q)}
            if sub == "/commands":
                return {"commands": [dict(v, scope_key=k[0]) for k, v in self.commands.items()]}
            if sub == "/topics":
                return {"topics": [t for c in self.chats.values() for t in c["topics"].values()
                                   if not q.get("chat_id") or c["id"] == int(q["chat_id"])]}
            if sub == "/chats":
                return {"chats": [dict(self.chat_json(c), blocked=c["blocked"], kicked=c["kicked"],
                                       migrated_to=c["migrated_to"], topics=sorted(c["topics"])) for c in self.chats.values()]}
            if sub == "/violations":
                return {"violations": [v for v in self.since(self.violations, q)
                                       if (not q.get("kind") or v["kind"] == q["kind"])
                                       and (not q.get("severity") or v["severity"] == q["severity"])]}
            if sub == "/requests":
                return {"requests": [r for r in self.since(self.requests, q) if not q.get("method") or r["method"] == q["method"]]}
            if sub == "/settings":
                return {"settings": self.settings}
            if sub == "/file":
                rec = self.files.get(q.get("file_id", ""))
                if rec is None:
                    raise ControlError(404, "unknown file_id")
                return {"file_id": rec["file_id"], "name": rec["name"], "size": rec["size"], "sha256": rec["sha256"],
                        "content_b64": base64.b64encode(rec["data"]).decode() if rec["data"] is not None else None}
            raise ControlError(404, "unknown control route GET %s" % sub)
        if sub == "/messages":
            return self.c_inject_message(b)
        if sub == "/edit_message":
            return self.c_edit_message(b)
        if sub == "/delete_message":
            return self.c_delete_message(b)
        if sub == "/callback":
            return self.c_callback(b)
        if sub == "/chats":
            user = self.add_user(b["from"]) if b.get("from") else None
            return {"chat": self.chat_json(self.ensure_chat(b, user))}
        if sub == "/topics":
            chat = self.chats.get(int(b["chat_id"]))
            if chat is None or not chat.get("is_forum"):
                raise ControlError(400, "chat %s is not a known forum" % b.get("chat_id"))
            creator = self.add_user(b["from"]) if b.get("from") else {"id": 777000, "is_bot": False, "first_name": "Telegram"}
            t = self.make_topic(chat, b.get("name") or "Topic", int(b.get("icon_color") or ICON_COLORS[0]), None, creator, False)
            return {"message_thread_id": t["message_thread_id"], "topic": t}
        if sub == "/fail_downloads":
            self.failing_downloads = int(b.get("count", 1))
            return {"failing_downloads": self.failing_downloads}
        if sub == "/rate_limit":
            ent = {"chat_id": int(b["chat_id"]) if b.get("chat_id") is not None else None,
                   "retry_after": int(b.get("retry_after", 5)), "count": int(b.get("count", 1)), "method": b.get("method")}
            self.forced.append(ent)
            return {"rate_limit": ent}
        if sub == "/cut_polls":
            n = 0
            if self.active_poll is not None and self.active_poll.state == "waiting":
                self.active_poll.state = "cut"
                n = 1
            self.human("[control] cut %d waiting getUpdates connection(s)" % n)
            return {"cut": n}
        if sub == "/webhook":
            ok, desc = self.set_webhook(b.get("url") or "", bool(b.get("drop_pending_updates")))
            return {"url": self.webhook["url"], "description": desc}
        if sub == "/block":
            chat = self.chats.get(int(b["chat_id"]))
            if chat is None:
                raise ControlError(400, "unknown chat %s" % b.get("chat_id"))
            upd = self._set_blocked(chat, bool(b.get("blocked", True)))
            return {"blocked": bool(b.get("blocked", True)), "update_id": upd["update_id"] if upd else None}
        if sub == "/migrate":
            return self.c_migrate(b)
        if sub == "/settings":
            for k, v in b.items():
                if k == "token":
                    self.token = str(v)
                    continue
                if k not in self.settings:
                    raise ControlError(400, "unknown setting %r (known: %s)" % (k, ", ".join(sorted(self.settings))))
                self.settings[k] = type(DEFAULT_SETTINGS[k])(v) if not isinstance(DEFAULT_SETTINGS[k], bool) else bool(v)
            if "rate_limits" in b or any(k.startswith(("chat_", "group_", "global_")) for k in b):
                self.limiter.buckets.clear()
                self.limiter.group_times.clear()
                self.limiter.global_times.clear()
                self.windows.clear()
            return {"settings": self.settings}
        if sub == "/clear":
            self.violations, self.requests, self.actions, self.human_lines = [], [], [], []
            self.windows.clear()
            self.forced = []
            return {"cleared": True}
        raise ControlError(404, "unknown control route %s %s" % (method, sub))

    def handle_control(self, method, path, query, body):
        q = {k: v[-1] for k, v in query.items()}
        sub = path[len("/_control"):].rstrip("/") or "/"
        try:
            b = json.loads(body.decode("utf-8")) if body else {}
            if not isinstance(b, dict):
                raise ValueError("body must be a JSON object")
        except ValueError as e:
            return 400, {"error": "control body: %s" % e}
        try:
            if sub == "/wait" and method == "GET":
                return self.c_wait(q)
            with self.cond:
                out = self.control(method, sub, q, b)
                out["cursor"] = self.seq
                return 200, out
        except ControlError as e:
            return e.status, {"error": str(e)}
        except (KeyError, ValueError, TypeError) as e:
            return 400, {"error": "%s: %s" % (type(e).__name__, e)}


EMULATED_LOWER = {n.lower(): n for n in (
    "getMe", "getUpdates", "setWebhook", "deleteWebhook", "getWebhookInfo", "sendMessage", "editMessageText",
    "editMessageReplyMarkup", "deleteMessage", "sendChatAction", "answerCallbackQuery", "sendPhoto", "sendDocument",
    "getFile", "setMyCommands", "getMyCommands", "deleteMyCommands", "createForumTopic", "getChatMember")}


# ---------------------------------------------------------------- HTTP
def parse_multipart(body, ctype):
    """Parts as (name, filename or None, content type, bytes). A part is a file only if its
    Content-Disposition carries a filename (server)."""
    m = re.search(r'boundary=(?:"([^"]+)"|([^;\s]+))', ctype, re.I)
    if not m:
        raise ApiError(400, "Bad Request: boundary not found", vkind="rejected")
    delim = b"--" + (m.group(1) or m.group(2)).encode()
    parts = []
    for chunk in body.split(delim)[1:]:
        if chunk.startswith(b"--"):
            break
        chunk = chunk[2:] if chunk.startswith(b"\r\n") else chunk
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            continue
        if data.endswith(b"\r\n"):
            data = data[:-2]
        name = filename = None
        pctype = None
        for line in head.decode("utf-8", "replace").split("\r\n"):
            k, _, v = line.partition(":")
            if k.strip().lower() == "content-disposition":
                for pm in re.finditer(r';\s*([\w*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))', v):
                    val = pm.group(2) if pm.group(2) is not None else pm.group(3)
                    val = re.sub(r"\\(.)", r"\1", val)
                    if pm.group(1).lower() == "name":
                        name = val
                    elif pm.group(1).lower() == "filename":
                        filename = val
            elif k.strip().lower() == "content-type":
                pctype = v.strip()
        if name is None:
            raise ApiError(400, "Bad Request: field name in multipart/form-data not found", vkind="rejected")
        parts.append((name, filename, pctype, data))
    return parts


def read_params(query, ctype, body):
    """Merge query-string and body parameters (first occurrence wins, as in the server). JSON bodies: string
    values as-is, everything else as its JSON text."""
    args, files = {}, {}
    for k, vs in query.items():
        args.setdefault(k, vs[0])
    ct = (ctype or "").lower()
    if not body:
        return args, files
    if "application/json" in ct:
        try:
            v = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ApiError(400, "Bad Request: can't parse parameter value: %s" % e, vkind="rejected")
        if not isinstance(v, dict):
            raise ApiError(400, "Bad Request: JSON object expected", vkind="rejected")
        for k, val in v.items():
            args.setdefault(k, val if isinstance(val, str) else json.dumps(val, ensure_ascii=False,
                                                                           separators=(",", ":")))
    elif ct.startswith("application/x-www-form-urlencoded"):
        for k, vs in urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items():
            args.setdefault(k, vs[0])
    elif ct.startswith("multipart/form-data"):
        for name, filename, pctype, data in parse_multipart(body, ctype):
            if filename is not None:
                files.setdefault(name, {"filename": filename, "content_type": pctype, "data": data})
            else:
                args.setdefault(name, data.decode("utf-8", "replace"))
    if sum(len(k) + len(v) for k, v in args.items()) > MAX_PARAMS:
        raise ApiError(413, "Request Entity Too Large: too many parameters", vkind="rejected")
    return args, files


class Handler(BaseHTTPRequestHandler):
    # The body goes out at once, as a real server sends it. http.server writes the headers and
    # the body in two sends; with Nagle's algorithm the body waited for the client's delayed ACK
    # (~40 ms), a delay no real platform adds (measured: half of all Telegram updates took it).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_version = "fake-telegram"
    sys_version = ""
    app = None

    def version_string(self):
        return self.server_version

    def log_message(self, fmt, *args):
        if self.app.args.verbose:
            sys.stderr.write("fake-telegram: %s\n" % re.sub(r"/bot[^/\s]+", "/bot<token>", fmt % args))

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _route(self, method):
        app = self.app
        try:
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
            body = self._read_body()
            if path.startswith("/_control"):
                if path.rstrip("/") == "/_control/transcript.txt":
                    with app.cond:
                        txt = "".join(h["line"] + "\n" for h in app.human_lines)
                    return self._send(200, {"Content-Type": "text/plain; charset=utf-8"}, txt.encode("utf-8"))
                st, out = app.handle_control(method, path, query, body)
                return self._send(st, {"Content-Type": "application/json"}, json.dumps(out).encode())
            m = re.match(r"^/file/bot([^/]*)/(.+)$", path)
            if m:
                st, err, data = app.download(m.group(1), m.group(2))
                if err is not None:
                    return self._send(st, {"Content-Type": "application/json"}, json.dumps(err).encode())
                return self._send(200, {"Content-Type": "application/octet-stream"}, data)
            m = re.match(r"^/bot([^/]*)/([^/]*)$", path)
            if not m:
                return self._send(404, {"Content-Type": "application/json"},
                                  b'{"ok":false,"error_code":404,"description":"Not Found"}')
            args, files, perr = {}, {}, None
            try:
                args, files = read_params(query, self.headers.get("Content-Type"), body)
            except ApiError as e:
                perr = e
            try:
                st, headers, out = app.handle_api(method, m.group(1), m.group(2), args, files,
                                                  self.headers.get("Content-Type"), perr)
            except DropConnection:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            self._send(st, dict(headers, **{"Content-Type": "application/json"}),
                       json.dumps(out, separators=(",", ":")).encode())
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:
            traceback.print_exc()
            try:
                self._send(500, {"Content-Type": "application/json"},
                           b'{"ok":false,"error_code":500,"description":"Internal Server Error: fake_telegram bug"}')
            except OSError:
                pass
            self.close_connection = True

    def _send(self, status, headers, body):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

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
    # The copy beside this file (MIT, telegram-bot-api.LICENSE.txt), so a fresh clone has it.
    cands = [os.environ.get("FAKE_TELEGRAM_SPEC"), os.path.join(HERE, "telegram-bot-api.json")]
    return next((c for c in cands if c and os.path.isfile(c)), None)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fake Telegram Bot API server for tests")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--control-port-file", required=True)
    ap.add_argument("--token", default=DEFAULT_TOKEN)
    ap.add_argument("--transcript", default=None)
    ap.add_argument("--spec", default=None, help="telegram-bot-api.json (default: $FAKE_TELEGRAM_SPEC, else the copy beside this file)")
    ap.add_argument("--no-spec", action="store_true", help="run without the parameter-name checks")
    ap.add_argument("--callback-deadline", type=float, default=15.0, help="answerCallbackQuery deadline, seconds")
    ap.add_argument("--retention-scale", type=float, default=1.0,
                    help="multiply the 150 s callback / 24 h message update retention (e.g. 0.01)")
    ap.add_argument("--no-rate-limits", action="store_true", help="start with the natural flood limits off")
    ap.add_argument("--first-update-id", type=int, default=512000001)
    ap.add_argument("--bot-id", type=int, default=DEFAULT_BOT_ID, help="the bot's user id (getMe, its messages' from)")
    ap.add_argument("--bot-username", default=DEFAULT_BOT_USERNAME, help="the bot's username, without @")
    ap.add_argument("--bot-name", default=DEFAULT_BOT_FIRST_NAME, help="the bot's first_name")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.no_spec:
        spec = ApiSpec(None)
    else:
        path = args.spec or default_spec_path()
        if not path or not os.path.isfile(path):
            ap.error("telegram-bot-api.json not found; pass --spec PATH, set FAKE_TELEGRAM_SPEC, or use --no-spec")
        spec = ApiSpec(path)
    app = FakeTelegram(args, spec)
    Handler.app = app
    srv = Server(("127.0.0.1", args.port), Handler)
    app.port = srv.server_address[1]
    info = {"port": app.port, "base": "http://127.0.0.1:%d" % app.port}
    tmp = args.control_port_file + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, args.control_port_file)
    if args.verbose:
        sys.stderr.write("fake-telegram listening on %s\n" % json.dumps(info))
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
