#!/usr/bin/env python3
"""Self-test for the fake Telegram Bot API server. Standard library only.

Starts fake_telegram.py as a subprocess on a free port and drives it over real sockets with urllib
(Bot API calls, the file endpoint and the /_control API). Exits non-zero on failure; ~20 s.

  python3 Tests/Fakes/fake_telegram/selftest.py [-k NAME] [--keep-log]
"""

import argparse
import base64
import hashlib
import http.client as http_client
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = "123456:TEST-telegram-token-abcdefghijklmnop"
BASE = None
ALICE = {"id": 1001, "first_name": "Alice", "username": "alice"}
BOB = {"id": 1002, "first_name": "Bob", "username": "bob"}


# ------------------------------------------------------------------ HTTP helpers
def http(method, url, body=None, headers=None, timeout=30):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def api(method, params=None, js=None, files=None, token=TOKEN, verb="POST", query=None):
    """Call a Bot API method: form-encoded params, a JSON body (js) or multipart (files)."""
    url = "%s/bot%s/%s" % (BASE, token, method)
    if query:
        url += "?" + urllib.parse.urlencode(query)
    body, headers = None, {}
    if js is not None:
        body, headers = json.dumps(js).encode(), {"Content-Type": "application/json"}
    elif files is not None:
        boundary = "----selftest%d" % time.time_ns()
        chunks = []
        for k, v in (params or {}).items():
            chunks.append(('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary, k, v)).encode())
        for k, (fname, data) in files.items():
            disp = 'form-data; name="%s"' % k + ('; filename="%s"' % fname if fname is not None else "")
            chunks.append(("--%s\r\nContent-Disposition: %s\r\nContent-Type: application/octet-stream\r\n\r\n"
                           % (boundary, disp)).encode() + data + b"\r\n")
        chunks.append(("--%s--\r\n" % boundary).encode())
        body, headers = b"".join(chunks), {"Content-Type": "multipart/form-data; boundary=" + boundary}
    elif params is not None:
        body = urllib.parse.urlencode(params).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
    st, h, raw = http(verb, url, body, headers, timeout=70)
    out = json.loads(raw)
    assert out.get("error_code", 200) == st or out["ok"], "HTTP status %d != error_code in %r" % (st, out)
    out["_status"], out["_headers"] = st, h
    return out


def ctl(path, body=None, method=None, timeout=30):
    st, _, raw = http(method or ("POST" if body is not None else "GET"), BASE + "/_control" + path,
                      json.dumps(body).encode() if body is not None else None, {"Content-Type": "application/json"},
                      timeout)
    out = json.loads(raw)
    out["_status"] = st
    return out


def wait(**q):
    return ctl("/wait?" + urllib.parse.urlencode(q), timeout=float(q.get("timeout", 10)) + 10)


def ok(r):
    assert r["ok"], "expected ok, got %r" % r
    return r["result"]


def err(r, status, desc):
    assert not r["ok"] and r["error_code"] == status and r["description"] == desc, \
        "expected %d %r, got %r" % (status, desc, {k: r.get(k) for k in ("ok", "error_code", "description", "result")})
    return r


def violations(since, kind=None):
    q = "?since=%d" % since + ("&kind=" + kind if kind else "")
    return ctl("/violations" + q)["violations"]


def cursor():
    return ctl("/cursor")["cursor"]


def inject(text=None, frm=ALICE, chat=None, **kw):
    body = dict(kw, **{"from": frm})
    if text is not None:
        body["text"] = text
    if chat is not None:
        body["chat"] = chat
    r = ctl("/messages", body)
    assert r["_status"] == 200, r
    return r


def drain():
    """Confirm everything queued (short poll with offset past the last update)."""
    res = ok(api("getUpdates", {"timeout": 0}))
    if res:
        ok(api("getUpdates", {"offset": res[-1]["update_id"] + 1, "timeout": 0}))
    return res


def png(w, h):
    raw = b"".join(b"\x00" + b"\x80\x40\x20" * w for _ in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def in_thread(fn):
    box = {}

    def run():
        try:
            box["result"] = fn()
        except Exception as e:  # noqa: BLE001 - reported by the caller
            box["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


# ------------------------------------------------------------------ tests
def test_tokens_and_routing():
    me = ok(api("getMe", verb="GET"))
    assert me["id"] == 7000000001 and me["username"] == "pirelay_test_bot" and me["is_bot"], me
    err(api("getMe", token="123456:wrong-secret"), 401, "Unauthorized")
    err(api("getMe", token="no-colon-token"), 401, "Unauthorized: invalid token specified")
    err(api("getMe", token="0123:abc"), 401, "Unauthorized: invalid token specified")
    err(api("getMe", token="-5:abc"), 401, "Unauthorized: invalid token specified")
    err(api("noSuchMethod"), 404, "Not Found: method not found")
    ok(api("GETME"))  # method names are case-insensitive
    c0 = cursor()
    err(api("sendAudio", {"chat_id": 1}), 400, "Bad Request: method sendAudio is not emulated by fake_telegram")
    assert violations(c0, "method_not_emulated"), "no method_not_emulated violation"
    st, _, raw = http("GET", BASE + "/nothing-here")
    assert st == 404 and json.loads(raw)["description"] == "Not Found"


def test_long_poll_wakeup_and_offsets():
    ctl("/settings", {"poll_throttle": False})
    drain()
    c0 = cursor()
    t, box = in_thread(lambda: (time.monotonic(), api("getUpdates", {"timeout": 10})))
    assert wait(**{"for": "poll", "since": c0, "timeout": 5})["ok"], "poll not seen"
    t_inj = time.monotonic()
    r = inject("hello bot")
    t.join(5)
    assert "result" in box, box
    res = ok(box["result"][1])
    assert time.monotonic() - t_inj < 2.0, "long poll did not wake promptly"
    assert [u["update_id"] for u in res] == [r["update_id"]] and res[0]["message"]["text"] == "hello bot", res
    # not confirmed: comes back again (twice), then an offset confirms it
    again = ok(api("getUpdates", {"timeout": 0}))
    assert [u["update_id"] for u in again] == [r["update_id"]], again
    upd = [u for u in ctl("/updates")["updates"] if u["update_id"] == r["update_id"]][0]
    assert upd["delivered"] == 2 and not upd["confirmed"], upd
    r2 = inject("second")
    res = ok(api("getUpdates", {"offset": r["update_id"] + 1, "timeout": 0}))
    assert [u["update_id"] for u in res] == [r2["update_id"]], res
    assert wait(**{"for": "confirmed", "update_id": r["update_id"], "timeout": 1})["ok"]
    # limit
    r3 = inject("third")
    res = ok(api("getUpdates", {"offset": r2["update_id"], "limit": 1}))
    assert [u["update_id"] for u in res] == [r2["update_id"]], res
    res = ok(api("getUpdates", {"offset": r3["update_id"] + 1}))
    assert res == []
    # negative offset is recorded; offset far in the future confirms nothing
    c1 = cursor()
    inject("a")
    inject("b")
    res = ok(api("getUpdates", {"offset": -1}))
    assert len(res) == 1 and res[0]["message"]["text"] == "b", res
    assert violations(c1, "negative_offset")
    res = ok(api("getUpdates", {"offset": res[0]["update_id"] + 1000}))
    assert len(res) == 1, "future offset must not confirm"
    assert violations(c1, "offset_in_future")
    drain()


def test_poll_throttle():
    drain()
    ctl("/settings", {"poll_throttle": True})
    try:
        t0 = time.monotonic()
        ok(api("getUpdates", {"offset": 0, "timeout": 0}))   # same offset as drain() within 3 s: held for 3 s
        assert 2.5 < time.monotonic() - t0 < 4.5, time.monotonic() - t0
        r = inject("during throttle")
        t0 = time.monotonic()
        res = ok(api("getUpdates", {"timeout": 0}))          # 3 s after the previous start: no stretch
        assert time.monotonic() - t0 < 1 and res[0]["update_id"] == r["update_id"], res
    finally:
        ctl("/settings", {"poll_throttle": False})


def test_conflicts_and_cut():
    ctl("/settings", {"conflict_spacing": False})
    drain()
    c0 = cursor()
    t1, box1 = in_thread(lambda: api("getUpdates", {"timeout": 20}))
    assert wait(**{"for": "poll", "since": c0, "timeout": 5})["ok"]
    c1 = cursor()
    t2, box2 = in_thread(lambda: api("getUpdates", {"timeout": 20}))
    t1.join(5)
    err(box1["result"], 409, "Conflict: terminated by other getUpdates request; make sure that only one bot "
                             "instance is running")
    assert wait(**{"for": "poll", "since": c1, "timeout": 5})["ok"]
    # a dropped connection: the waiting poll gets no answer at all
    assert ctl("/cut_polls", {})["cut"] == 1
    t2.join(5)
    e = box2.get("error")
    assert e is not None and isinstance(e, (http_client.RemoteDisconnected, ConnectionError, urllib.error.URLError)), box2
    # webhook excludes polling
    assert ctl("/webhook", {"url": "https://example.invalid/hook"})["url"]
    err(api("getUpdates", {"timeout": 0}), 409, "Conflict: can't use getUpdates method while webhook is active; "
                                                "use deleteWebhook to delete the webhook first")
    info = ok(api("getWebhookInfo"))
    assert info["url"] == "https://example.invalid/hook", info
    r = api("deleteWebhook")
    assert r["result"] is True and r["description"] == "Webhook was deleted", r
    r = api("deleteWebhook")
    assert r["description"] == "Webhook is already deleted", r
    ok(api("getUpdates", {"timeout": 0}))


def test_allowed_updates_and_retention():
    drain()
    ok(api("getUpdates", {"allowed_updates": json.dumps(["message"])}))
    m = ok(api("sendMessage", {"chat_id": ALICE["id"], "text": "pick",
                               "reply_markup": json.dumps({"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]})}))
    cb = ctl("/callback", {"chat_id": ALICE["id"], "message_id": m["message_id"], "from": ALICE, "data": "a"})
    assert cb["update_id"] is None and not cb["queued"], "callback must be filtered at creation: %r" % cb
    ok(api("getUpdates", {"allowed_updates": "[]"}))   # [] = default set again (not retroactive)
    assert ok(api("getUpdates")) == []
    # callback_query updates live 150 s (scaled down here)
    ctl("/settings", {"callback_retention_s": 0.5, "callback_deadline_s": 30})
    cb = ctl("/callback", {"chat_id": ALICE["id"], "message_id": m["message_id"], "from": ALICE, "data": "a"})
    assert cb["update_id"], cb
    time.sleep(0.8)
    assert ok(api("getUpdates")) == [], "callback update should have expired"
    upd = [u for u in ctl("/updates")["updates"] if u["update_id"] == cb["update_id"]][0]
    assert upd["state"] == "expired", upd
    ctl("/settings", {"callback_retention_s": 150})
    # message updates: 24 h after the message date
    r = inject("old news", date=int(time.time()) - 86400 + 1)
    time.sleep(1.5)
    assert ok(api("getUpdates")) == [], "day-old message update should have expired"
    assert [u for u in ctl("/updates")["updates"] if u["update_id"] == r["update_id"]][0]["state"] == "expired"


HTML_OK = [
    ("<b>bold</b> <i>it</i> <u>u</u> <s>s</s>", "bold it u s",
     [("bold", 0, 4), ("italic", 5, 2), ("underline", 8, 1), ("strikethrough", 10, 1)]),
    ("<B>x</B><Strong>y</Strong>", "xy", [("bold", 0, 2)]),  # case-insensitive, adjacent bold merges
    ('<pre><code class="language-python">x = 1</code></pre>', "x = 1", [("pre", 0, 5)]),
    ('<a href="https://example.com/p?a=1&amp;b=2">link</a>', "link", [("text_link", 0, 4)]),
    ('<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>', "st", [("spoiler", 0, 2)]),
    ("<blockquote expandable>q</blockquote>", "q", [("expandable_blockquote", 0, 1)]),
    ("\U0001F600 <b>\u00e9</b> &lt;tag&gt; &#x41;&#66;", "\U0001F600 \u00e9 <tag> AB", [("bold", 3, 1)]),
]
HTML_BAD = [
    ("line<br>next", 'Unsupported start tag "br" at byte offset 4'),
    ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
    ("<pre>code", 'Can\'t find end tag corresponding to start tag "pre"'),
    ("x</b>", "Unexpected end tag at byte offset 1"),
    ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ("if a < b", 'Unsupported start tag "" at byte offset 5'),
    ("\u00e9<p>x</p>", 'Unsupported start tag "p" at byte offset 2'),
    ("oops <b", "Unclosed start tag at byte offset 5"),
]


def test_html():
    chat = ALICE["id"]
    for src, text, ents in HTML_OK:
        m = ok(api("sendMessage", {"chat_id": chat, "text": src, "parse_mode": "HTML"}))
        got = [(e["type"], e["offset"], e["length"]) for e in m.get("entities", [])]
        assert m["text"] == text and got == ents, "%r -> %r %r" % (src, m["text"], got)
    m = ok(api("sendMessage", {"chat_id": chat, "text": '<pre><code class="language-python">x</code></pre>',
                               "parse_mode": "html"}))
    assert m["entities"][0].get("language") == "python", m
    for src, detail in HTML_BAD:
        err(api("sendMessage", {"chat_id": chat, "text": src, "parse_mode": "HTML"}), 400,
            "Bad Request: can't parse entities: " + detail)
    err(api("sendMessage", {"chat_id": chat, "text": "x", "parse_mode": "XML"}), 400, "Bad Request: unsupported parse_mode")
    # forgiven by Telegram, recorded by the fake
    c0 = cursor()
    m = ok(api("sendMessage", {"chat_id": chat, "text": "a & b > c &lt d", "parse_mode": "HTML"}))
    assert m["text"] == "a & b > c < d", m
    kinds = {v["kind"] for v in violations(c0)}
    assert {"html_unescaped_amp", "html_unescaped_gt", "html_entity_without_semicolon"} <= kinds, kinds
    c0 = cursor()
    m = ok(api("sendMessage", {"chat_id": chat, "text": "<code><b>x</b></code>", "parse_mode": "HTML"}))
    assert [e["type"] for e in m["entities"]] == ["code"], m
    assert violations(c0, "html_formatting_dropped")


def test_lengths():
    chat = ALICE["id"]
    ok(api("sendMessage", {"chat_id": chat, "text": "<b>" + "x" * 4096 + "</b>", "parse_mode": "HTML"}))
    ok(api("sendMessage", {"chat_id": chat, "text": "&lt;" * 4096, "parse_mode": "HTML"}))
    ok(api("sendMessage", {"chat_id": chat, "text": "\U0001F600" * 4096}))  # code points, not UTF-16 units
    ok(api("sendMessage", {"chat_id": chat, "text": "\n\n  " + "y" * 4096 + "  \n"}))  # trimmed first
    err(api("sendMessage", {"chat_id": chat, "text": "x" * 4097}), 400, "Bad Request: message is too long")
    err(api("sendMessage", {"chat_id": chat, "text": "<i>" + "x" * 4097 + "</i>", "parse_mode": "HTML"}), 400,
        "Bad Request: message is too long")
    err(api("sendMessage", {"chat_id": chat, "text": "x" * 32769}), 400, "Bad Request: text is too long")
    err(api("sendMessage", {"chat_id": chat, "text": ""}), 400, "Bad Request: message text is empty")
    err(api("sendMessage", {"chat_id": chat}), 400, "Bad Request: message text is empty")
    # empty after parsing and trimming: the server's (TDLib's) wording
    err(api("sendMessage", {"chat_id": chat, "text": "<b> </b>", "parse_mode": "HTML"}), 400,
        "Bad Request: text must be non-empty")
    err(api("sendMessage", {"chat_id": chat, "text": "\n"}), 400, "Bad Request: text must be non-empty")
    m = ok(api("sendMessage", {"chat_id": chat, "text": "  <b>hi</b>  ", "parse_mode": "HTML"}))
    assert m["text"] == "hi" and m["entities"] == [{"offset": 0, "length": 2, "type": "bold"}], m
    err(api("sendMessage", {"chat_id": 424242, "text": "who?"}), 400, "Bad Request: chat not found")
    err(api("sendMessage", {"text": "who?"}), 400, "Bad Request: chat_id is empty")


def test_edits_keyboards_callbacks():
    chat = ALICE["id"]
    kb = {"inline_keyboard": [[{"text": "Approve", "callback_data": "ok:1"}, {"text": "Deny", "callback_data": "no:1"}]]}
    m = ok(api("sendMessage", js={"chat_id": chat, "text": "<b>Run?</b>", "parse_mode": "HTML", "reply_markup": kb}))
    assert m["reply_markup"] == kb, m
    mid = m["message_id"]
    c0 = cursor()
    err(api("editMessageText", js={"chat_id": chat, "message_id": mid, "text": "<strong>Run?</strong>",
                                   "parse_mode": "HTML", "reply_markup": kb}), 400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same "
        "as a current content and reply markup of the message")
    assert violations(c0, "message_not_modified")
    e = ok(api("editMessageText", {"chat_id": chat, "message_id": mid, "text": "<b>Run?</b>", "parse_mode": "HTML"}))
    assert "reply_markup" not in e and e["edit_date"], "edit without reply_markup must remove the keyboard: %r" % e
    view = ctl("/message?chat_id=%d&message_id=%d" % (chat, mid))["message"]
    assert view["reply_markup"] is None and view["edit_count"] == 1 and view["html"] == "<b>Run?</b>", view
    ok(api("editMessageReplyMarkup", {"chat_id": chat, "message_id": mid, "reply_markup": json.dumps(kb)}))
    err(api("editMessageText", {"chat_id": chat, "message_id": 99999, "text": "x"}), 400,
        "Bad Request: message to edit not found")
    u = inject("user text")
    err(api("editMessageText", {"chat_id": chat, "message_id": u["message_id"], "text": "x"}), 400,
        "Bad Request: message can't be edited")
    # callback_data: 1-64 bytes, not characters
    ok(api("sendMessage", js={"chat_id": chat, "text": "b", "reply_markup": {
        "inline_keyboard": [[{"text": "x", "callback_data": "\u00e9" * 32}]]}}))
    err(api("sendMessage", js={"chat_id": chat, "text": "b", "reply_markup": {
        "inline_keyboard": [[{"text": "x", "callback_data": "\u00e9" * 32 + "a"}]]}}), 400, "Bad Request: BUTTON_DATA_INVALID")
    err(api("sendMessage", js={"chat_id": chat, "text": "b", "reply_markup": {"inline_keyboard": [[{"text": "x"}]]}}), 400,
        "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
    err(api("sendMessage", {"chat_id": chat, "text": "b", "reply_markup": "{not json"}), 400,
        "Bad Request: can't parse reply keyboard markup JSON object")
    # button press, answer in time, answer twice, answer late, never answer
    drain()
    ctl("/settings", {"callback_deadline_s": 1.0})
    r = ctl("/callback", {"chat_id": chat, "message_id": mid, "from": ALICE, "data": "ok:1"})
    assert ctl("/callback", {"chat_id": chat, "message_id": mid, "from": ALICE, "data": "nope"})["_status"] == 400
    res = drain()
    cq = res[0]["callback_query"]
    assert cq["id"] == r["callback_query_id"] and cq["data"] == "ok:1" and cq["message"]["message_id"] == mid, cq
    c0 = cursor()
    ok(api("answerCallbackQuery", {"callback_query_id": cq["id"], "text": "Approved"}))
    assert wait(**{"for": "callback_answer", "id": cq["id"], "timeout": 1})["result"]["text"] == "Approved"
    too_old = "Bad Request: query is too old and response timeout expired or query ID is invalid"
    err(api("answerCallbackQuery", {"callback_query_id": cq["id"]}), 400, too_old)
    assert violations(c0, "callback_answered_twice")
    r2 = ctl("/callback", {"chat_id": chat, "message_id": mid, "from": ALICE, "data": "no:1"})
    r3 = ctl("/callback", {"chat_id": chat, "message_id": mid, "from": ALICE, "data": "no:1"})
    drain()
    time.sleep(1.3)
    err(api("answerCallbackQuery", {"callback_query_id": r2["callback_query_id"]}), 400, too_old)
    assert violations(c0, "callback_answer_late")
    missed = [v for v in violations(c0, "callback_not_answered") if v.get("callback_query_id") == r3["callback_query_id"]]
    assert missed, "missing answer not recorded"
    cbs = {c["id"]: c for c in ctl("/callbacks")["callbacks"]}
    assert cbs[r2["callback_query_id"]]["late"] is True and cbs[cq["id"]]["late"] is False, cbs
    ctl("/settings", {"callback_deadline_s": 15})
    # delete
    ok(api("deleteMessage", {"chat_id": chat, "message_id": mid}))
    err(api("deleteMessage", {"chat_id": chat, "message_id": mid}), 400, "Bad Request: message to delete not found")
    assert ctl("/message?chat_id=%d&message_id=%d" % (chat, mid))["message"]["deleted"] is True


def test_files():
    chat = ALICE["id"]
    blob = os.urandom(3000) + "caf\u00e9\n".encode()
    m = ok(api("sendDocument", {"chat_id": chat, "caption": "<i>log</i>", "parse_mode": "HTML"},
               files={"document": ("run.log", blob)}))
    doc = m["document"]
    assert doc["file_name"] == "run.log" and doc["file_size"] == len(blob) and m["caption"] == "log", m
    view = ctl("/message?chat_id=%d&message_id=%d" % (chat, m["message_id"]))["message"]
    assert view["document"]["sha256"] == hashlib.sha256(blob).hexdigest(), view
    back = ctl("/file?file_id=" + urllib.parse.quote(doc["file_id"]))
    assert base64.b64decode(back["content_b64"]) == blob
    # a part without filename is a text parameter -> read as a file_id
    err(api("sendDocument", {"chat_id": chat}, files={"document": (None, b"not a file")}), 400,
        "Bad Request: wrong file identifier/HTTP URL specified")
    err(api("sendDocument", {"chat_id": chat}), 400, "Bad Request: there is no document in the request")
    # attach:// and re-sending by file_id
    ok(api("sendDocument", {"chat_id": chat, "document": "attach://f0"}, files={"f0": ("a.txt", b"abc")}))
    ok(api("sendDocument", {"chat_id": chat, "document": doc["file_id"]}))
    err(api("sendDocument", {"chat_id": chat, "caption": "x" * 1025}, files={"document": ("a.txt", b"a")}), 400,
        "Bad Request: message caption is too long")
    # photos
    p = ok(api("sendPhoto", {"chat_id": chat}, files={"photo": ("p.png", png(64, 48))}))
    assert p["photo"][-1]["width"] == 64 and p["photo"][-1]["height"] == 48, p
    err(api("sendPhoto", {"chat_id": chat}, files={"photo": ("p.png", b"not an image")}), 400,
        "Bad Request: IMAGE_PROCESS_FAILED")
    # incoming photo and document, getFile + download, 20 MB refusal
    img = png(1000, 500)
    r = inject(None, photo={"content_b64": base64.b64encode(img).decode()}, caption="look /fix")
    sizes = r["message"]["photo"]
    assert len(sizes) > 1 and sizes[-1]["width"] == 1000 and r["message"]["caption"] == "look /fix", r
    assert r["message"]["caption_entities"] == [{"offset": 5, "length": 4, "type": "bot_command"}], r
    f = ok(api("getFile", {"file_id": sizes[-1]["file_id"]}))
    st, _, data = http("GET", "%s/file/bot%s/%s" % (BASE, TOKEN, f["file_path"]))
    assert st == 200 and data == img, (st, len(data))
    f0 = ok(api("getFile", {"file_id": sizes[0]["file_id"]}))
    st, _, data0 = http("GET", "%s/file/bot%s/%s" % (BASE, TOKEN, f0["file_path"]))
    assert data0 != img, "photo[0] is a thumbnail, not the original"
    st, _, _ = http("GET", "%s/file/bot%s/%s" % (BASE, "123456:wrong", f["file_path"]))
    assert st == 401
    st, _, _ = http("GET", "%s/file/bot%s/documents/never-issued.txt" % (BASE, TOKEN))
    assert st == 404
    d = inject(None, document={"file_name": "notes.md", "content_b64": base64.b64encode(b"# hi").decode()})
    f = ok(api("getFile", {"file_id": d["message"]["document"]["file_id"]}))
    assert http("GET", "%s/file/bot%s/%s" % (BASE, TOKEN, f["file_path"]))[2] == b"# hi"
    big = inject(None, document={"file_name": "huge.bin", "size": 21 * 1024 * 1024})
    err(api("getFile", {"file_id": big["message"]["document"]["file_id"]}), 400, "Bad Request: file is too big")
    err(api("getFile", {"file_id": "nope"}), 400, "Bad Request: invalid file_id")
    # a voice note: Message.voice {file_id, file_unique_id, duration, mime_type, file_size}, its path voice/…
    ogg = b"OggS" + bytes(60)
    v = inject(None, voice={"content_b64": base64.b64encode(ogg).decode(), "duration": 3})
    voice = v["message"]["voice"]
    assert voice["duration"] == 3 and voice["mime_type"] == "audio/ogg" and voice["file_size"] == len(ogg), voice
    assert voice["file_id"].startswith("AwAC") and "text" not in v["message"], v
    f = ok(api("getFile", {"file_id": voice["file_id"]}))
    assert f["file_path"].startswith("voice/") and f["file_path"].endswith(".oga"), f
    assert http("GET", "%s/file/bot%s/%s" % (BASE, TOKEN, f["file_path"]))[2] == ogg
    # an album: several messages with one media_group_id, the caption on one of them (spec §5)
    a1 = inject(None, photo={"content_b64": base64.b64encode(png(8, 8)).decode()}, caption="both", media_group_id="g1")
    a2 = inject(None, photo={"content_b64": base64.b64encode(png(8, 8)).decode()}, media_group_id="g1")
    assert a1["message"]["media_group_id"] == a2["message"]["media_group_id"] == "g1", (a1, a2)
    assert "caption" not in a2["message"] and a2["message"]["message_id"] == a1["message"]["message_id"] + 1, a2
    assert "media_group_id" not in v["message"], v
    r = ctl("/messages", {"from": ALICE, "text": "no album", "media_group_id": "g2"})
    assert r["_status"] == 400 and "media_group_id" in r.get("error", r.get("description", "")), r
    drain()


def test_forum_topics_commands_actions():
    forum = -1001234567890
    ctl("/chats", {"id": forum, "type": "supergroup", "title": "Dev", "is_forum": True})
    t = ok(api("createForumTopic", {"chat_id": forum, "name": "session 1", "icon_color": 7322096}))
    tid = t["message_thread_id"]
    assert t["name"] == "session 1" and t["icon_color"] == 7322096, t
    m = ok(api("sendMessage", {"chat_id": forum, "message_thread_id": tid, "text": "in topic"}))
    assert m["message_thread_id"] == tid and m["is_topic_message"] is True, m
    assert [v["text"] for v in ctl("/messages?chat_id=%d&thread_id=%d" % (forum, tid))["messages"]] == ["in topic"]
    err(api("sendMessage", {"chat_id": forum, "message_thread_id": 9999, "text": "x"}), 400,
        "Bad Request: message thread not found")
    err(api("sendMessage", {"chat_id": forum, "message_thread_id": 1, "text": "x"}), 400,
        "Bad Request: message thread not found")
    err(api("createForumTopic", {"chat_id": forum, "name": "x", "icon_color": 123}), 400,
        "Bad Request: invalid icon color specified")
    err(api("createForumTopic", {"chat_id": forum, "name": "  "}), 400, "Bad Request: name must be non-empty")
    err(api("createForumTopic", {"chat_id": ALICE["id"], "name": "x"}), 400, "Bad Request: the chat is not a forum")
    r = inject("from the topic", frm=BOB, chat={"id": forum}, message_thread_id=tid)
    assert r["message"]["message_thread_id"] == tid and r["message"]["reply_to_message"]["forum_topic_created"]
    # commands by scope
    ok(api("setMyCommands", js={"commands": [{"command": "/status", "description": "Show status"}]}))
    ok(api("setMyCommands", js={"commands": [{"command": "new", "description": "New session"}],
                                "scope": {"type": "chat", "chat_id": forum}}))
    assert ok(api("getMyCommands")) == [{"command": "status", "description": "Show status"}]
    assert ok(api("getMyCommands", {"scope": json.dumps({"type": "chat", "chat_id": forum})}))[0]["command"] == "new"
    err(api("setMyCommands", js={"commands": [{"command": "Bad", "description": "x"}]}), 400,
        "Bad Request: BOT_COMMAND_INVALID")
    ok(api("deleteMyCommands", js={"scope": {"type": "chat", "chat_id": forum}}))
    assert [c["scope_key"] for c in ctl("/commands")["commands"]] == ["default"]
    # chat actions
    ok(api("sendChatAction", {"chat_id": forum, "action": "typing", "message_thread_id": tid}))
    err(api("sendChatAction", {"chat_id": forum, "action": "dancing"}), 400, "Bad Request: wrong parameter action in request")
    acts = ctl("/actions?chat_id=%d" % forum)["actions"]
    assert acts[-1]["action"] == "typing" and acts[-1]["message_thread_id"] == tid, acts
    drain()


def test_rate_limits():
    chat = BOB["id"]
    inject("hi", frm=BOB)
    ctl("/settings", {"rate_limits": True})
    try:
        c0 = cursor()
        ctl("/rate_limit", {"chat_id": chat, "retry_after": 2, "count": 1})
        r = api("sendMessage", {"chat_id": chat, "text": "one"})
        err(r, 429, "Too Many Requests: retry after 2")
        assert r["parameters"] == {"retry_after": 2} and r["_headers"].get("Retry-After") == "2", r
        time.sleep(0.3)
        err(api("sendMessage", {"chat_id": chat, "text": "again"}), 429, "Too Many Requests: retry after 2")
        assert violations(c0, "retry_after_ignored"), "repeat inside the window not recorded"
        time.sleep(1.9)
        ok(api("sendMessage", {"chat_id": chat, "text": "after the window"}))
        # natural per-chat limit: small burst, then 429 (sends and edits count together)
        time.sleep(3.1)
        c1 = cursor()
        m = ok(api("sendMessage", {"chat_id": chat, "text": "s1"}))
        ok(api("editMessageText", {"chat_id": chat, "message_id": m["message_id"], "text": "s1 edited"}))
        ok(api("sendMessage", {"chat_id": chat, "text": "s2"}))
        r = api("sendMessage", {"chat_id": chat, "text": "s3"})
        assert r["error_code"] == 429 and r["parameters"]["retry_after"] >= 1, r
        assert violations(c1, "rate_limit_exceeded")
    finally:
        ctl("/settings", {"rate_limits": False})


def test_migrate_block_and_params():
    group = -4001
    inject("hello group", frm=BOB, chat={"id": group, "type": "group", "title": "Team"})
    ok(api("sendMessage", {"chat_id": group, "text": "hi team"}))
    new_id = ctl("/migrate", {"chat_id": group})["new_chat_id"]
    assert new_id == -1000000004001, new_id
    r = api("sendMessage", {"chat_id": group, "text": "still there?"})
    err(r, 400, "Bad Request: group chat was upgraded to a supergroup chat")
    assert r["parameters"] == {"migrate_to_chat_id": new_id}, r
    ok(api("sendMessage", {"chat_id": new_id, "text": "moved"}))
    res = drain()
    assert any(u.get("message", {}).get("migrate_to_chat_id") == new_id for u in res), res
    c0 = cursor()
    api("sendMessage", {"chat_id": group, "text": "again"})
    assert violations(c0, "migrated_chat_reused")
    # block -> 403 and a my_chat_member update
    carol = {"id": 1003, "first_name": "Carol"}
    inject("hi", frm=carol)
    ctl("/block", {"chat_id": carol["id"]})
    err(api("sendMessage", {"chat_id": carol["id"], "text": "hello?"}), 403, "Forbidden: bot was blocked by the user")
    res = drain()
    mcm = [u["my_chat_member"] for u in res if "my_chat_member" in u]
    assert mcm and mcm[-1]["new_chat_member"]["status"] == "kicked", res
    inject("I'm back", frm=carol)   # writing again means restarting the bot
    ok(api("sendMessage", {"chat_id": carol["id"], "text": "welcome back"}))
    # unknown parameters are ignored by Telegram and recorded here; JSON and query parameters work too
    c0 = cursor()
    m = ok(api("sendMessage", {"chat_id": ALICE["id"], "text": "<b>x</b>", "parse_mod": "HTML"}))
    assert m["text"] == "<b>x</b>", m
    assert any(v["parameter"] == "parse_mod" for v in violations(c0, "unknown_parameter"))
    ok(api("sendMessage", query={"chat_id": ALICE["id"], "text": "via query"}, verb="GET"))
    # transcript and requests never carry the token
    txt = http("GET", BASE + "/_control/transcript.txt")[2].decode()
    reqs = json.dumps(ctl("/requests"))
    assert "hi team" in txt and TOKEN.split(":")[1] not in txt + reqs


class other_fake:
    """A second fake process (own flags) that BASE points at inside the `with` block."""

    def __init__(self, *flags):
        self.flags = flags

    def __enter__(self):
        global BASE
        self.tmp = tempfile.mkdtemp(prefix="fake-telegram-selftest-other-")
        port_file = os.path.join(self.tmp, "port.json")
        self.log = open(os.path.join(self.tmp, "server.log"), "w")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_telegram.py"), "--port", "0",
                                      "--control-port-file", port_file, "--no-rate-limits"] + list(self.flags),
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            if os.path.exists(port_file):
                break
            assert self.proc.poll() is None, "second fake exited early; see %s" % self.log.name
            time.sleep(0.05)
        self.saved, BASE = BASE, json.load(open(port_file))["base"]
        ctl("/settings", {"poll_throttle": False, "conflict_spacing": False})
        return self

    def __exit__(self, *exc):
        global BASE
        BASE = self.saved
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        server_log = open(self.log.name).read()
        assert exc[0] is not None or "Traceback" not in server_log, "second fake's log has tracebacks:\n" + server_log
        return False


RELAY2 = ["--bot-id", "7000000002", "--bot-username", "Relay_Two_bot", "--bot-name", "relay two"]
OTHER_BOT = {"id": 7000000003, "first_name": "relay three", "username": "relay_three_bot", "is_bot": True}


def test_multibot_identity():
    with other_fake(*RELAY2):
        me = ok(api("getMe"))
        assert (me["id"], me["username"], me["first_name"], me["is_bot"]) == (7000000002, "Relay_Two_bot", "relay two", True), me
        assert me["can_read_all_group_messages"] is True, me
        inject("hi", frm=ALICE)
        m = ok(api("sendMessage", {"chat_id": ALICE["id"], "text": "hello from two"}))
        assert m["from"] == {"id": 7000000002, "is_bot": True, "first_name": "relay two", "username": "Relay_Two_bot"}, m
        assert ctl("/health")["bot"]["id"] == 7000000002
        # the token's numeric part need not be the bot id (the default token is still accepted)
        assert TOKEN.split(":")[0] != "7000000002"


def test_multibot_privacy():
    group, group2 = -5001, -1000000005002
    def delivered(r):
        return r["queued"] and r["update_id"] is not None and r["reason"] is None

    def hidden(r, reason):
        assert not r["queued"] and r["update_id"] is None and r["reason"] == reason, r

    with other_fake(*RELAY2):
        g = {"id": group, "type": "group", "title": "Three bots"}
        inject("hi", frm=ALICE)
        # privacy off (default): every group message but other bots'
        assert delivered(inject("plain text", chat=g))
        hidden(inject("/use@relay_two_bot from a bot", frm=OTHER_BOT, chat=g), "from_bot")
        ctl("/settings", {"privacy_mode": True})
        assert ok(api("getMe"))["can_read_all_group_messages"] is False
        # an admin reads everything despite privacy mode (bot_is_admin, default true) but other bots'
        assert delivered(inject("plain text to an admin", chat=g))
        hidden(inject("a bot talks", frm=OTHER_BOT, chat=g), "from_bot")
        ctl("/settings", {"bot_is_admin": False})
        drain()
        # privacy mode, not admin. The other bot posted last in the group, so a bare /cmd is not ours
        assert delivered(inject("/use@relay_two_bot x", chat=g))       # usernames match case-insensitively
        assert delivered(inject("/use@Relay_Two_bot y", chat=g))
        hidden(inject("/use@relay_three_bot x", chat=g), "privacy_mode")
        hidden(inject("/use x", chat=g), "privacy_mode")
        hidden(inject("just chatting", chat=g), "privacy_mode")
        hidden(inject("@Relay_Two_bot are you there", chat=g), "privacy_mode")   # a plain mention is not enough
        mine = ok(api("sendMessage", {"chat_id": group, "text": "relay two here"}))
        assert mine["from"]["id"] == 7000000002
        assert delivered(inject("/use z", chat=g))                      # this bot posted last
        assert delivered(inject("/status", frm=BOB, chat=g))
        theirs = inject("relay three here", frm=OTHER_BOT, chat=g)
        hidden(theirs, "from_bot")
        hidden(inject("/use w", chat=g), "privacy_mode")                # now the other bot posted last
        assert delivered(inject("thanks", chat=g, reply_to_message_id=mine["message_id"]))   # reply to this bot
        hidden(inject("thanks three", chat=g, reply_to_message_id=theirs["message_id"]), "privacy_mode")
        # "last bot" is per group: posting in the group does not open bare commands in another one
        inject("hello", chat={"id": group2, "type": "supergroup", "title": "Other"}, frm=BOB)
        ok(api("sendMessage", {"chat_id": group, "text": "again"}))
        assert delivered(inject("/use v", chat=g))
        hidden(inject("/use v", frm=BOB, chat={"id": group2}), "privacy_mode")
        # private chats are delivered in full
        assert delivered(inject("plain private text"))
        texts = [u["message"].get("text") for u in drain() if "message" in u]
        assert texts == ["/use@relay_two_bot x", "/use@Relay_Two_bot y", "/use z", "/status", "thanks", "/use v",
                         "plain private text"], texts
        # privacy off again: plain text arrives, other bots' messages still never do
        ctl("/settings", {"privacy_mode": False})
        assert delivered(inject("plain again", chat=g))
        hidden(inject("bots never hear bots", frm=OTHER_BOT, chat=g), "from_bot")
        assert [u["message"]["text"] for u in drain()] == ["plain again"]
        # the other bot's messages are stored like any other
        views = ctl("/messages?chat_id=%d" % group)["messages"]
        assert any(v["from_id"] == OTHER_BOT["id"] and not v["from_bot"] for v in views), views


def test_get_chat_member():
    sg, grp, kicked_grp, kicked_sg = -1000000006001, -6002, -6003, -1000000006004
    bot = {"id": 7000000001, "is_bot": True, "first_name": "pi relay", "username": "pirelay_test_bot"}
    never_seen = 990001
    inject("hi", frm=BOB)   # Bob is known to the bot from here on, but never writes in the groups below
    inject("hello sg", chat={"id": sg, "title": "SG"})
    inject("hello group", chat={"id": grp, "type": "group", "title": "G"})
    c0 = cursor()
    # the bot itself, bot_is_admin (default): administrator; can_manage_topics only in supergroups
    adm = ok(api("getChatMember", {"chat_id": sg, "user_id": bot["id"]}))
    assert adm == {"user": bot, "status": "administrator", "can_be_edited": False, "is_anonymous": False,
                   "can_manage_chat": True, "can_delete_messages": True, "can_manage_video_chats": True,
                   "can_restrict_members": True, "can_promote_members": False, "can_change_info": True,
                   "can_invite_users": True, "can_post_stories": False, "can_edit_stories": False,
                   "can_delete_stories": False, "can_pin_messages": True, "can_manage_topics": True,
                   "can_manage_tags": False, "can_manage_voice_chats": True}, adm
    ctl("/chats", {"id": sg, "bot_can_manage_topics": False})
    assert ok(api("getChatMember", {"chat_id": str(sg), "user_id": str(bot["id"])}))["can_manage_topics"] is False
    adm = ok(api("getChatMember", js={"chat_id": grp, "user_id": bot["id"]}))
    assert adm["status"] == "administrator" and adm["can_pin_messages"] and "can_manage_topics" not in adm, adm
    ctl("/settings", {"bot_is_admin": False})
    try:
        for chat in (sg, grp):
            assert ok(api("getChatMember", {"chat_id": chat, "user_id": bot["id"]})) == {"user": bot, "status": "member"}
    finally:
        ctl("/settings", {"bot_is_admin": True})
    # users: wrote in the chat -> member, known elsewhere -> left, never seen -> error
    assert ok(api("getChatMember", {"chat_id": sg, "user_id": ALICE["id"]})) == \
        {"user": {"id": ALICE["id"], "is_bot": False, "first_name": "Alice", "username": "alice"}, "status": "member"}
    assert ok(api("getChatMember", {"chat_id": grp, "user_id": BOB["id"]}))["status"] == "left"
    assert ok(api("getChatMember", {"chat_id": sg, "user_id": BOB["id"]}))["user"]["id"] == BOB["id"]
    err(api("getChatMember", {"chat_id": sg, "user_id": never_seen}), 400, "Bad Request: PARTICIPANT_ID_INVALID")
    err(api("getChatMember", {"chat_id": grp, "user_id": never_seen}), 400, "Bad Request: member not found")
    # private chat: the bot and the peer are members, nobody else
    assert ok(api("getChatMember", {"chat_id": ALICE["id"], "user_id": bot["id"]})) == {"user": bot, "status": "member"}
    assert ok(api("getChatMember", {"chat_id": ALICE["id"], "user_id": ALICE["id"]}))["status"] == "member"
    err(api("getChatMember", {"chat_id": ALICE["id"], "user_id": BOB["id"]}), 400, "Bad Request: member not found")
    # chat not found, bad user_id (checked first)
    err(api("getChatMember", {"chat_id": -6999, "user_id": ALICE["id"]}), 400, "Bad Request: chat not found")
    err(api("getChatMember", {"chat_id": "@no_such_group", "user_id": ALICE["id"]}), 400, "Bad Request: chat not found")
    err(api("getChatMember", {"chat_id": -6999, "user_id": "abc"}), 400, "Bad Request: invalid user_id specified")
    err(api("getChatMember", {"chat_id": sg, "user_id": -5}), 400, "Bad Request: invalid user_id specified")
    # kicked: a basic group still answers for the bot itself; others, and a supergroup, answer 403
    inject("x", chat={"id": kicked_grp, "type": "group"})
    inject("x", chat={"id": kicked_sg})
    ctl("/block", {"chat_id": kicked_grp})
    ctl("/block", {"chat_id": kicked_sg})
    assert ok(api("getChatMember", {"chat_id": kicked_grp, "user_id": bot["id"]})) == \
        {"user": bot, "status": "kicked", "until_date": 0}
    err(api("getChatMember", {"chat_id": kicked_grp, "user_id": ALICE["id"]}), 403,
        "Forbidden: bot was kicked from the group chat")
    err(api("getChatMember", {"chat_id": kicked_sg, "user_id": bot["id"]}), 403,
        "Forbidden: bot was kicked from the supergroup chat")
    ctl("/block", {"chat_id": kicked_grp, "blocked": False})
    assert ok(api("getChatMember", {"chat_id": kicked_grp, "user_id": bot["id"]}))["status"] == "administrator"
    drain()
    # not a send: no retry window, no forced 429 consumed, no flood accounting
    ctl("/rate_limit", {"chat_id": grp, "retry_after": 1, "count": 1})
    c1 = cursor()
    for _ in range(5):
        ok(api("getChatMember", {"chat_id": grp, "user_id": ALICE["id"]}))
    err(api("sendMessage", {"chat_id": grp, "text": "x"}), 429, "Too Many Requests: retry after 1")
    ok(api("getChatMember", {"chat_id": grp, "user_id": ALICE["id"]}))   # inside the window: not held
    assert not violations(c1, "retry_after_ignored")
    assert {v["kind"] for v in violations(c0)} == {"rejected", "parameter_type"}, violations(c0)   # user_id=abc
    time.sleep(1.1)


TESTS = [test_tokens_and_routing, test_long_poll_wakeup_and_offsets, test_poll_throttle, test_conflicts_and_cut,
         test_allowed_updates_and_retention, test_html, test_lengths, test_edits_keyboards_callbacks, test_files,
         test_forum_topics_commands_actions, test_rate_limits, test_migrate_block_and_params, test_multibot_identity,
         test_multibot_privacy, test_get_chat_member]


def main():
    global BASE
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None, help="run tests whose name contains this")
    ap.add_argument("--keep-log", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fake-telegram-selftest-")
    port_file = os.path.join(tmp, "port.json")
    transcript = os.path.join(tmp, "transcript.txt")
    log = open(os.path.join(tmp, "server.log"), "w")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_telegram.py"), "--port", "0",
                             "--control-port-file", port_file, "--transcript", transcript, "--no-rate-limits"],
                            stdout=log, stderr=subprocess.STDOUT)
    failed = []
    t_start = time.monotonic()
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            if proc.poll() is not None:
                raise SystemExit("fake_telegram exited early; see %s" % log.name)
            time.sleep(0.05)
        BASE = json.load(open(port_file))["base"]
        inject("hello")   # Alice's private chat exists from now on
        ctl("/settings", {"poll_throttle": False, "conflict_spacing": False})
        for t in TESTS:
            if args.k and args.k not in t.__name__:
                continue
            t0 = time.monotonic()
            try:
                t()
                print("ok   %-40s %.2fs" % (t.__name__, time.monotonic() - t0))
            except Exception:
                failed.append(t.__name__)
                print("FAIL %s" % t.__name__)
                traceback.print_exc()
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    server_log = open(log.name).read()
    if "Traceback" in server_log:
        print("server log has tracebacks:\n" + server_log)
        failed.append("server_tracebacks")
    if args.keep_log or failed:
        print("logs in", tmp)
    print("%s: %d failed, %.1fs" % ("FAIL" if failed else "PASS", len(failed), time.monotonic() - t_start))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
