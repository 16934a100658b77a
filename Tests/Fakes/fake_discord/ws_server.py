"""Minimal RFC 6455 WebSocket *server* framing over a plain socket.

Test-tree code for the fake Discord gateway. Standard library only.

- handshake: validates Upgrade/Connection/Sec-WebSocket-Key/Version and
  computes Sec-WebSocket-Accept (SHA-1 of key + GUID, base64).
- reading: client frames MUST be masked (else protocol error 1002);
  continuation frames are reassembled; control frames (close/ping/pong)
  may be interleaved, must be <= 125 bytes and unfragmented; reserved bits
  without an extension are a protocol error; text must be valid UTF-8 (1007).
- writing: server frames are never masked.
"""

import base64
import hashlib
import socket
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class ProtocolError(Exception):
    def __init__(self, code, reason):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class ConnectionLost(Exception):
    pass


def accept_key(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")


def check_handshake(method, headers):
    """Return (ok, status, reason). headers: case-insensitive mapping."""
    if method != "GET":
        return False, 405, "WebSocket handshake must use GET"
    up = (headers.get("Upgrade") or "").lower()
    conn = (headers.get("Connection") or "").lower()
    if up != "websocket" or "upgrade" not in [t.strip() for t in conn.split(",")]:
        return False, 400, "Missing Upgrade: websocket / Connection: Upgrade"
    key = headers.get("Sec-WebSocket-Key")
    if not key:
        return False, 400, "Missing Sec-WebSocket-Key"
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            return False, 400, "Sec-WebSocket-Key must be 16 bytes base64"
    except Exception:
        return False, 400, "Sec-WebSocket-Key is not base64"
    if (headers.get("Sec-WebSocket-Version") or "").strip() != "13":
        return False, 426, "Sec-WebSocket-Version must be 13"
    return True, 101, "ok"


def encode_frame(opcode, payload, fin=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", b0, n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, 126, n)
    else:
        head = struct.pack("!BBQ", b0, 127, n)
    return head + payload


def close_payload(code, reason=""):
    if code is None:
        return b""
    return struct.pack("!H", code) + reason.encode("utf-8")[:123]


class FrameReader:
    """Incremental reader. `sock` must have a timeout set; `poll()` returns a
    message tuple or None if the timeout elapsed without a complete message.

    Messages: ("text", str) | ("binary", bytes) | ("close", code|None, reason)
              | ("ping", bytes) | ("pong", bytes)
    """

    def __init__(self, sock, initial=b"", max_message=1 << 20):
        self.sock = sock
        self.buf = bytearray(initial)
        self.frag_op = None
        self.frag = bytearray()
        self.max_message = max_message

    def _fill(self):
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        except OSError as e:
            raise ConnectionLost(str(e))
        if not data:
            raise ConnectionLost("eof")
        self.buf += data
        return True

    def _parse_one(self):
        """Parse one frame from buf or return None if incomplete."""
        b = self.buf
        if len(b) < 2:
            return None
        b0, b1 = b[0], b[1]
        fin = bool(b0 & 0x80)
        rsv = b0 & 0x70
        op = b0 & 0x0F
        masked = bool(b1 & 0x80)
        n = b1 & 0x7F
        off = 2
        if n == 126:
            if len(b) < 4:
                return None
            n = struct.unpack_from("!H", b, 2)[0]
            off = 4
        elif n == 127:
            if len(b) < 10:
                return None
            n = struct.unpack_from("!Q", b, 2)[0]
            off = 10
        if rsv:
            raise ProtocolError(1002, "reserved bits set without negotiated extension")
        if not masked:
            raise ProtocolError(1002, "client frames must be masked")
        if n > self.max_message:
            raise ProtocolError(1009, "frame too large")
        if len(b) < off + 4 + n:
            return None
        mask = bytes(b[off:off + 4])
        raw = bytes(b[off + 4:off + 4 + n])
        del self.buf[:off + 4 + n]
        if n:
            full = (mask * (n // 4 + 1))[:n]
            raw = (int.from_bytes(raw, "big") ^ int.from_bytes(full, "big")).to_bytes(n, "big")
        return fin, op, raw

    def poll(self):
        while True:
            fr = self._parse_one()
            if fr is None:
                if not self._fill():
                    return None
                continue
            fin, op, payload = fr
            if op >= 0x8:
                if not fin or len(payload) > 125:
                    raise ProtocolError(1002, "invalid control frame")
                if op == OP_CLOSE:
                    if len(payload) == 0:
                        return ("close", None, "")
                    if len(payload) == 1:
                        raise ProtocolError(1002, "invalid close payload")
                    code = struct.unpack("!H", payload[:2])[0]
                    try:
                        reason = payload[2:].decode("utf-8")
                    except UnicodeDecodeError:
                        raise ProtocolError(1007, "invalid UTF-8 in close reason")
                    return ("close", code, reason)
                if op == OP_PING:
                    return ("ping", payload)
                if op == OP_PONG:
                    return ("pong", payload)
                raise ProtocolError(1002, "unknown control opcode %d" % op)
            if op == OP_CONT:
                if self.frag_op is None:
                    raise ProtocolError(1002, "continuation without start")
                self.frag += payload
            elif op in (OP_TEXT, OP_BINARY):
                if self.frag_op is not None:
                    raise ProtocolError(1002, "new data frame inside fragmented message")
                self.frag_op = op
                self.frag = bytearray(payload)
            else:
                raise ProtocolError(1002, "unknown data opcode %d" % op)
            if len(self.frag) > self.max_message:
                raise ProtocolError(1009, "message too large")
            if fin:
                op_, data = self.frag_op, bytes(self.frag)
                self.frag_op, self.frag = None, bytearray()
                if op_ == OP_TEXT:
                    try:
                        return ("text", data.decode("utf-8"))
                    except UnicodeDecodeError:
                        raise ProtocolError(1007, "invalid UTF-8 in text frame")
                return ("binary", data)
