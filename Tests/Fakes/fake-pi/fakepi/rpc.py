"""RPC mode (rpc-mode.ts): command dispatch, responses, extension UI sub-protocol."""

from __future__ import annotations

import asyncio
import uuid

from .jsonio import dumps, js_parse
from .runtime import set_timeout, spawn

UNDEF = object()


def js_str(v) -> str:
    """`${v}` for a JSON value."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return dumps(v)
    if isinstance(v, list):
        return ",".join("" if x is None else js_str(x) for x in v)
    return "[object Object]"


class RpcUI:
    """createExtensionUIContext(): every call becomes an extension_ui_request line."""

    def __init__(self, output):
        self.output = output
        self.pending: dict = {}

    def _dialog(self, opts, default, request, parse):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        opts = opts or {}
        signal = opts.get("signal")
        if signal is not None and signal.aborted:
            fut.set_result(default)
            return fut
        rid = str(uuid.uuid4())
        state = {"timer": None}

        def resolve(v):
            if not fut.done():
                fut.set_result(v)

        def cleanup():
            if state["timer"] is not None:
                state["timer"].cancel()
            if signal is not None:
                signal.remove_listener(on_abort)
            self.pending.pop(rid, None)

        def on_abort():
            cleanup()
            resolve(default)

        if signal is not None:
            signal.add_listener(on_abort)
        if opts.get("timeout"):
            def on_timeout():
                cleanup()
                resolve(default)

            state["timer"] = set_timeout(opts["timeout"], on_timeout)

        def on_response(resp):
            cleanup()
            resolve(parse(resp))

        self.pending[rid] = on_response
        req = {"type": "extension_ui_request", "id": rid}
        for k, v in request.items():
            if v is not None:
                req[k] = v
        self.output(req)
        return fut

    @staticmethod
    def _value_parse(r):
        if "cancelled" in r and r["cancelled"]:
            return None
        return r["value"] if "value" in r else None

    @staticmethod
    def _confirm_parse(r):
        if "cancelled" in r and r["cancelled"]:
            return False
        return r["confirmed"] if "confirmed" in r else False

    def select(self, title, options, opts=None):
        return self._dialog(opts, None, {"method": "select", "title": title, "options": options,
                                         "timeout": (opts or {}).get("timeout")}, self._value_parse)

    def confirm(self, title, message, opts=None):
        return self._dialog(opts, False, {"method": "confirm", "title": title, "message": message,
                                          "timeout": (opts or {}).get("timeout")}, self._confirm_parse)

    def input(self, title, placeholder=None, opts=None):
        return self._dialog(opts, None, {"method": "input", "title": title, "placeholder": placeholder,
                                         "timeout": (opts or {}).get("timeout")}, self._value_parse)

    def editor(self, title, prefill=None):
        # no timeout / signal support on the agent side
        return self._dialog(None, None, {"method": "editor", "title": title, "prefill": prefill}, self._value_parse)

    def _fire(self, request):
        req = {"type": "extension_ui_request", "id": str(uuid.uuid4())}
        for k, v in request.items():
            if v is not None:
                req[k] = v
        self.output(req)

    def notify(self, message, notify_type=None):
        self._fire({"method": "notify", "message": message, "notifyType": notify_type})

    def set_status(self, key, text):
        self._fire({"method": "setStatus", "statusKey": key, "statusText": text})

    def set_widget(self, key, lines, options=None):
        if lines is None or isinstance(lines, list):
            self._fire({"method": "setWidget", "widgetKey": key, "widgetLines": lines,
                        "widgetPlacement": (options or {}).get("placement")})

    def set_title(self, title):
        self._fire({"method": "setTitle", "title": title})

    def set_editor_text(self, text):
        self._fire({"method": "set_editor_text", "text": text})

    def handle_response(self, resp):
        cb = self.pending.pop(resp.get("id"), None) if isinstance(resp.get("id"), str) else None
        if cb:
            cb(resp)


def _resp(cid, command, success, data=UNDEF, error=None):
    r = {}
    if cid is not UNDEF:
        r["id"] = cid
    r["type"] = "response"
    if command is not UNDEF:
        r["command"] = command
    r["success"] = success
    if success:
        if data is not UNDEF:
            r["data"] = data
    else:
        r["error"] = error
    return r


def _req_str(cmd, key, method="trim"):
    v = cmd.get(key, UNDEF)
    if v is UNDEF or v is None:
        raise TypeError(f"Cannot read properties of {'undefined' if v is UNDEF else 'null'} (reading '{method}')")
    if not isinstance(v, str):
        raise TypeError(f"command.{key}.{method} is not a function")
    return v


class RpcMode:
    def __init__(self, session, writer):
        self.session = session
        self.writer = writer
        self.ui = RpcUI(self.output)

    def output(self, obj):
        raw = obj.get("_raw") if isinstance(obj, dict) else None
        if raw is not None:
            self.writer.write_line(raw)
        else:
            self.writer.write_line(dumps(obj))

    # rpc-mode.ts handleInputLine
    async def handle_input_line(self, line: str):
        try:
            parsed = js_parse(line)
            if parsed is None:
                raise TypeError("Cannot read properties of null (reading 'type')")
            if isinstance(parsed, dict) and parsed.get("type") == "extension_ui_response":
                self.ui.handle_response(parsed)
                return
            response = await self.handle_command(parsed)
            self.output(response)
        except Exception as e:  # noqa: BLE001
            self.output(_resp(UNDEF, "parse", False, error=f"Failed to parse command: {e}"))

    async def handle_command(self, cmd):
        s = self.session
        if not isinstance(cmd, dict):
            return _resp(UNDEF, UNDEF, False, error="Unknown command: undefined")
        cid = cmd.get("id", UNDEF)
        t = cmd.get("type", UNDEF)

        def ok(data=UNDEF):
            return _resp(cid, t, True, data)

        if t == "prompt":
            try:
                pending = s.prompt_start(cmd.get("message"), cmd.get("images"), cmd.get("streamingBehavior"))
            except Exception as e:  # noqa: BLE001 - synchronous rejection: .catch runs first
                self.output(_resp(cid, "prompt", False, error=str(e)))
                return ok()
            if pending is not None:
                spawn(self._prompt_tail(pending, cid))
            return ok()
        if t == "steer":
            s.steer(cmd.get("message"), cmd.get("images"))
            return ok()
        if t == "follow_up":
            s.follow_up(cmd.get("message"), cmd.get("images"))
            return ok()
        if t == "abort":
            await s.abort()
            return ok()
        if t == "new_session":
            parent = cmd.get("parentSession") or None
            done = await s.new_session(parent)
            return ok({"cancelled": not done})
        if t == "get_state":
            return ok(s.get_state())
        if t == "set_model":
            models = s.registry.get_available()
            model = next((m for m in models if m["provider"] == cmd.get("provider") and
                          m["id"] == cmd.get("modelId")), None)
            if model is None:
                return _resp(cid, "set_model", False,
                             error=f"Model not found: {_undef(cmd, 'provider')}/{_undef(cmd, 'modelId')}")
            await s.set_model(model)
            return ok(model)
        if t == "cycle_model":
            r = await s.cycle_model()
            return ok(r if r is not None else None)
        if t == "get_available_models":
            return ok({"models": s.registry.get_available()})
        if t == "set_thinking_level":
            s.set_thinking_level(cmd.get("level"))
            return ok()
        if t == "cycle_thinking_level":
            lvl = s.cycle_thinking_level()
            return ok({"level": lvl} if lvl else None)
        if t == "set_steering_mode":
            s.agent.steering_mode = cmd.get("mode")
            s.settings.set_steering_mode(cmd.get("mode"))
            return ok()
        if t == "set_follow_up_mode":
            s.agent.follow_up_mode = cmd.get("mode")
            s.settings.set_follow_up_mode(cmd.get("mode"))
            return ok()
        if t == "compact":
            result = await s.compact(cmd.get("customInstructions"))
            return ok(result)
        if t == "set_auto_compaction":
            s.settings.set_compaction_enabled(cmd.get("enabled"))
            return ok()
        if t == "set_auto_retry":
            s.settings.set_retry_enabled(cmd.get("enabled"))
            return ok()
        if t == "abort_retry":
            s.abort_retry()
            return ok()
        if t == "bash":
            command = cmd.get("command")
            if not isinstance(command, str):
                raise TypeError('The "args[1]" argument must be of type string. Received undefined')
            return ok(await s.execute_bash(command))
        if t == "abort_bash":
            s.abort_bash()
            return ok()
        if t == "get_session_stats":
            return ok(s.get_session_stats())
        if t == "export_html":
            return ok({"path": s.export_html(cmd.get("outputPath"))})
        if t == "switch_session":
            done = await s.switch_session(cmd.get("sessionPath"))
            return ok({"cancelled": not done})
        if t == "fork":
            r = await s.fork(cmd.get("entryId"))
            return ok({"text": r["text"], "cancelled": r["cancelled"]})
        if t == "get_fork_messages":
            return ok({"messages": s.get_fork_messages()})
        if t == "get_last_assistant_text":
            text = s.get_last_assistant_text()
            return ok({} if text is None else {"text": text})
        if t == "set_session_name":
            name = _req_str(cmd, "name").strip()
            if not name:
                return _resp(cid, "set_session_name", False, error="Session name cannot be empty")
            s.set_session_name(name)
            return ok()
        if t == "get_messages":
            return ok({"messages": s.agent.messages})
        if t == "get_commands":
            commands = []
            if s.runner is not None:
                for name, c, path in s.runner.commands_with_paths():
                    commands.append({"name": name, "description": c.description, "source": "extension",
                                     "path": path})
            return ok({"commands": commands})
        return _resp(UNDEF, t, False, error=f"Unknown command: {'undefined' if t is UNDEF else js_str(t)}")

    async def _prompt_tail(self, pending, cid):
        try:
            await pending
        except Exception as e:  # noqa: BLE001
            self.output(_resp(cid, "prompt", False, error=str(e)))


def _undef(cmd, key):
    v = cmd.get(key, UNDEF)
    return "undefined" if v is UNDEF else js_str(v)
