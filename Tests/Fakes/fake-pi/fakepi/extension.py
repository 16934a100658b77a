"""A built-in stand-in for a loaded pi extension (modelled on examples/extensions/rpc-demo.ts).

It is "loaded" unless --no-extensions is given without any -e path. Its extensionPath is the
first -e path (made absolute) or <agentDir>/extensions/fake-pi-ext.ts.
"""

from __future__ import annotations

import json
import os
import re

from .scenarios import parse_scenario
from .tools import Tool


class ExtensionRunner:
    def __init__(self, extensions, on_error):
        self.extensions = extensions
        self.on_error = on_error  # rpc output of extension_error

    def has_handlers(self, event_type):
        return any(ext.has_handler(event_type) for ext in self.extensions)

    def emit_error(self, err):
        self.on_error(err)

    async def emit(self, event, ctx=None):
        result = None
        for ext in self.extensions:
            if not ext.has_handler(event["type"]):
                continue
            try:
                r = await ext.handle(event, ctx)
                if r is not None:
                    result = r
            except Exception as e:  # noqa: BLE001
                self.emit_error({"extensionPath": ext.path, "event": event["type"], "error": str(e)})
        return result

    def get_command(self, name):
        for ext in self.extensions:
            if name in ext.commands:
                return ext.commands[name]
        return None

    def commands_with_paths(self):
        out = []
        for ext in self.extensions:
            for name, cmd in ext.commands.items():
                out.append((name, cmd, ext.path))
        return out

    def tools(self):
        out = []
        for ext in self.extensions:
            out.extend(ext.tools)
        return out


class Command:
    def __init__(self, name, description, handler):
        self.name = name
        self.description = description
        self.handler = handler  # def handler(args, ui) -> None | coroutine (sync prefix runs first)


class AskUserTool(Tool):
    """Extension tool whose execute() asks the user through ctx.ui dialogs (like the ask_user
    tools of zac-dougo/pi-questions, RPC flavour). Args: {kind, title, message?, options?,
    placeholder?, prefill?, timeout?}. Result text: "answer: <JSON of the value>"."""

    name = "ask_user"
    description = "Ask the user a question through the client UI."

    def __init__(self, ext):
        self.ext = ext

    async def execute(self, tool_call_id, args, signal, on_update):
        ui = self.ext.ui
        kind = args.get("kind", "select")
        opts = {"signal": signal}
        if args.get("timeout"):
            opts["timeout"] = args["timeout"]
        if kind == "select":
            value = await ui.select(args.get("title", ""), args.get("options", []), opts)
        elif kind == "confirm":
            value = await ui.confirm(args.get("title", ""), args.get("message", ""), opts)
        elif kind == "input":
            value = await ui.input(args.get("title", ""), args.get("placeholder"), opts)
        elif kind == "editor":
            value = await ui.editor(args.get("title", ""), args.get("prefill"))
        else:
            raise RuntimeError(f"Unknown question kind: {kind}")
        details = {"kind": kind}
        if value is not None:
            details["answer"] = value
        return {"content": [{"type": "text", "text": "answer: " + json.dumps(value, ensure_ascii=False)}],
                "details": details}


_DANGEROUS = [re.compile(r"\brm\s+(-rf?|--recursive)", re.I), re.compile(r"\bsudo\b", re.I)]

FIRE_METHODS = ("notify", "status", "widget", "title", "editor-text", "fire")


class FakeExtension:
    def __init__(self, path, env, ui_getter):
        self.path = path
        self.env = env
        self._ui_getter = ui_getter
        self.turn_count = 0
        self.armed: dict = {}
        self.commands = {
            "foo": Command("foo", "Demo command: notifies its arguments, starts no agent run", self._cmd_foo),
            "fail": Command("fail", "Demo command that throws", self._cmd_fail),
            "rpc-input": Command("rpc-input", "Prompt for text input (demonstrates ctx.ui.input in RPC)",
                                 self._cmd_input),
            "rpc-editor": Command("rpc-editor", "Open multi-line editor (demonstrates ctx.ui.editor in RPC)",
                                  self._cmd_editor),
            "rpc-prefill": Command("rpc-prefill", "Prefill the input editor (demonstrates ctx.ui.setEditorText)",
                                   self._cmd_prefill),
        }
        self.tools = [AskUserTool(self)]
        self.handlers = {"before_agent_start", "turn_start", "turn_end", "agent_end", "tool_call"}
        if env.get("FAKE_PI_STARTUP_UI") == "1":
            self.handlers.add("session_start")
        if env.get("FAKE_PI_CONFIRM_NEW_SESSION") == "1":
            self.handlers.add("session_before_switch")
        if env.get("FAKE_PI_INPUT_HANDLER") == "1":
            self.handlers.add("input")
        if env.get("FAKE_PI_CANCEL_COMPACT") == "1":
            self.handlers.add("session_before_compact")

    @property
    def ui(self):
        return self._ui_getter()

    def has_handler(self, t):
        return t in self.handlers

    # -- commands (sync prefix runs before the prompt's response is written) --------
    def _cmd_foo(self, args, ui):
        ui.notify(f"foo: {args}" if args else "foo", "info")

    def _cmd_fail(self, args, ui):
        raise RuntimeError("fail command exploded")

    def _cmd_input(self, args, ui):
        fut = ui.input("Enter a value", "type something...")

        async def rest():
            value = await fut
            ui.notify(f"You entered: {value}" if value else "Input cancelled", "info")

        return rest()

    def _cmd_editor(self, args, ui):
        fut = ui.editor("Edit some text", "Line 1\nLine 2\nLine 3")

        async def rest():
            text = await fut
            if text:
                ui.notify(f"Editor submitted ({len(text.split(chr(10)))} lines)", "info")
            else:
                ui.notify("Editor cancelled", "info")

        return rest()

    def _cmd_prefill(self, args, ui):
        ui.set_editor_text("This text was set by the rpc-demo extension.")
        ui.notify("Editor prefilled", "info")

    # -- events ----------------------------------------------------------------------
    async def handle(self, event, ctx):
        t = event["type"]
        ui = self.ui
        if t == "session_start":
            ui.set_title("pi RPC Demo")
            ui.set_widget("rpc-demo", ["--- RPC Extension UI Demo ---", "Loaded and ready."])
            ui.set_status("rpc-demo", f"Turns: {self.turn_count}")
            return None
        if t == "input":
            return {"action": "continue"}
        if t == "session_before_compact":
            return {"cancel": True}
        if t == "session_before_switch":
            if event.get("reason") != "new":
                return None
            confirmed = await ui.confirm("Clear session?", "All messages will be lost.")
            if not confirmed:
                ui.notify("Clear cancelled", "info")
                return {"cancel": True}
            return None
        if t == "before_agent_start":
            sc = parse_scenario(event.get("prompt") or "")
            self.armed = {}
            if sc:
                name, args = sc
                if name == "extension-error":
                    self.armed["throw_turn_start"] = True
                elif name == "custom-message":
                    return {"messages": [{"customType": "fake-pi-ext", "content": "Context injected by fake-pi-ext "
                                          "before the agent started.", "display": True,
                                          "details": {"source": "before_agent_start"}}]}
                elif name == "ui" and args:
                    self.armed["ui"] = args[0]
                    if args[0] == "select":
                        self.armed["select_timeout"] = _int_arg(args, 1, 30000)
            return None
        if t == "turn_start":
            self.turn_count += 1
            if self.armed.pop("throw_turn_start", False):
                raise RuntimeError("turn_start handler exploded (scenario extension-error)")
            method = self.armed.get("ui")
            if method and not self.armed.get("fired"):
                self.armed["fired"] = True
                if method in ("notify", "fire"):
                    ui.notify("Build finished", "info")
                    ui.notify("Disk almost full", "warning")
                    ui.notify("Deploy failed", "error")
                    ui.notify("Plain note without a type")
                if method in ("status", "fire"):
                    ui.set_status("fake-pi", f"Turn {self.turn_count} running...")
                if method in ("widget", "fire"):
                    ui.set_widget("fake-pi", ["Widget line 1", "Widget line 2"], {"placement": "aboveEditor"})
                    ui.set_widget("fake-pi-below", ["Below the editor"], {"placement": "belowEditor"})
                    ui.set_widget("fake-pi-plain", ["No placement given"])
                if method in ("title", "fire"):
                    ui.set_title("pi: fake scenario")
                if method in ("editor-text", "fire"):
                    ui.set_editor_text("Draft reply from the fake extension")
            return None
        if t == "turn_end":
            if self.armed.get("ui") in ("status", "fire"):
                ui.set_status("fake-pi", f"Turn {self.turn_count} done")
            return None
        if t == "agent_end":
            method = self.armed.get("ui")
            if method in ("status", "fire"):
                ui.set_status("fake-pi", None)
            if method in ("widget", "fire"):
                ui.set_widget("fake-pi", None)
            return None
        if t == "tool_call":
            if event.get("toolName") != "bash":
                return None
            command = str((event.get("input") or {}).get("command", ""))
            if any(p.search(command) for p in _DANGEROUS):
                opts = {}
                timeout = self.armed.get("select_timeout")
                if timeout:
                    opts["timeout"] = timeout
                choice = await ui.select(f"Dangerous command: {command}", ["Allow", "Block"], opts)
                if choice != "Allow":
                    ui.notify("Command blocked by user", "warning")
                    shown = "undefined" if choice is None else choice
                    return {"block": True, "reason": f"Blocked by user (choice: {shown})"}
                ui.notify("Command allowed", "info")
            return None
        return None


def _int_arg(args, i, default):
    try:
        return int(args[i])
    except (IndexError, ValueError):
        return default


def extension_path(parsed_extensions, agent_dir):
    if parsed_extensions:
        return os.path.abspath(parsed_extensions[0])
    return os.path.join(agent_dir, "extensions", "fake-pi-ext.ts")
