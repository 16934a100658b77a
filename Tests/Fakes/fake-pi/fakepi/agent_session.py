"""Emulation of coding-agent's AgentSession (agent-session.ts): event queue, persistence,
queues, auto-retry, auto-compaction, manual compaction, bash, session switching."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import tempfile

from .models import THINKING_LEVELS, THINKING_LEVELS_WITH_XHIGH, supports_xhigh
from .runtime import AbortController, RT, set_timeout, sleep_ms, spawn
from .scenarios import ScriptedLlm, user_text
from .session import iso_to_ms, now_ms
from .tools import DEFAULT_MAX_BYTES, truncate_tail

DOCS_PATH = "/usr/local/lib/node_modules/@mariozechner/pi-coding-agent/docs"
COMPACT_MS = float(os.environ.get("FAKE_PI_COMPACT_MS", "150"))
# How long a prompt's pre-run phase takes (the API-key lookup, which an OAuth refresh makes a
# network round trip): a second prompt in it slips past the streaming check (pi-rpc spec §5).
PRERUN_MS = float(os.environ.get("FAKE_PI_PRERUN_MS", "0"))

OVERFLOW_PATTERNS = [re.compile(p, re.I) for p in (
    r"prompt is too long", r"input is too long for requested model", r"exceeds the context window",
    r"input token count.*exceeds the maximum", r"maximum prompt length is \d+", r"reduce the length of the messages",
    r"maximum context length is \d+ tokens", r"exceeds the limit of \d+", r"exceeds the available context size",
    r"greater than the context length", r"context window exceeds limit", r"exceeded model token limit",
    r"too large for model with \d+ maximum context length", r"model_context_window_exceeded",
    r"context[_ ]length[_ ]exceeded", r"too many tokens", r"token limit exceeded")]
RETRYABLE_RE = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|"
    r"reset before headers|terminated|retry delay", re.I)
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def node_fs_error(e: OSError, syscall: str, path: str) -> str:
    """Node's fs error text, e.g. "ENOENT: no such file or directory, open '/x'"."""
    import errno

    code = errno.errorcode.get(e.errno or 0, "EIO")
    text = "illegal operation on a directory" if code == "EISDIR" else (e.strerror or "i/o error").lower()
    return f"{code}: {text}, {syscall} '{path}'"


def is_context_overflow(msg, context_window):
    if msg.get("stopReason") == "error" and msg.get("errorMessage"):
        if any(p.search(msg["errorMessage"]) for p in OVERFLOW_PATTERNS):
            return True
        if re.match(r"^4(00|13)\s*(status code)?\s*\(no body\)", msg["errorMessage"], re.I):
            return True
    if context_window and msg.get("stopReason") == "stop":
        u = msg.get("usage", {})
        if u.get("input", 0) + u.get("cacheRead", 0) > context_window:
            return True
    return False


def calculate_context_tokens(usage):
    return usage.get("totalTokens") or (usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"])


def _assistant_usage(m):
    if m.get("role") == "assistant" and m.get("stopReason") not in ("aborted", "error") and m.get("usage"):
        return m["usage"]
    return None


def estimate_context_tokens(messages):
    idx = None
    for i in range(len(messages) - 1, -1, -1):
        if _assistant_usage(messages[i]):
            idx = i
            break
    if idx is None:
        est = sum(ScriptedLlm.estimate_tokens(m) for m in messages)
        return {"tokens": est, "lastUsageIndex": None}
    usage_tokens = calculate_context_tokens(messages[idx]["usage"])
    trailing = sum(ScriptedLlm.estimate_tokens(m) for m in messages[idx + 1 :])
    return {"tokens": usage_tokens + trailing, "lastUsageIndex": idx}


def _entry_message(e):
    t = e.get("type")
    if t == "message":
        return e["message"]
    if t == "custom_message":
        return {"role": "custom", "content": e.get("content")}
    if t == "compaction":
        return {"role": "compactionSummary", "summary": e.get("summary", "")}
    return None


def prepare_compaction(path_entries, settings):
    if path_entries and path_entries[-1].get("type") == "compaction":
        return None
    prev = -1
    for i in range(len(path_entries) - 1, -1, -1):
        if path_entries[i].get("type") == "compaction":
            prev = i
            break
    start, end = prev + 1, len(path_entries)
    usage_msgs = [m for m in (_entry_message(e) for e in path_entries[(prev if prev >= 0 else 0):end]) if m]
    tokens_before = estimate_context_tokens(usage_msgs)["tokens"]
    cut_points = []
    for i in range(start, end):
        e = path_entries[i]
        if e.get("type") == "message" and e["message"].get("role") != "toolResult":
            cut_points.append(i)
        elif e.get("type") in ("branch_summary", "custom_message"):
            cut_points.append(i)
    if not cut_points:
        cut = start
    else:
        cut = cut_points[0]
        acc = 0
        for i in range(end - 1, start - 1, -1):
            e = path_entries[i]
            if e.get("type") != "message":
                continue
            acc += ScriptedLlm.estimate_tokens(e["message"])
            if acc >= settings["keepRecentTokens"]:
                for c in cut_points:
                    if c >= i:
                        cut = c
                        break
                break
        while cut > start:
            p = path_entries[cut - 1]
            if p.get("type") in ("compaction", "message"):
                break
            cut -= 1
    if cut >= len(path_entries) or not path_entries[cut].get("id"):
        return None
    to_summarize = [m for m in (_entry_message(e) for e in path_entries[start:cut]) if m]
    read, modified = set(), set()
    for m in to_summarize:
        if m.get("role") == "assistant":
            for b in m.get("content", []):
                if b.get("type") == "toolCall":
                    p = (b.get("arguments") or {}).get("path")
                    if not p:
                        continue
                    if b["name"] == "read":
                        read.add(p)
                    elif b["name"] in ("edit", "write"):
                        modified.add(p)
    return {"firstKeptEntryId": path_entries[cut]["id"], "messagesToSummarize": to_summarize,
            "tokensBefore": tokens_before, "readFiles": sorted(read - modified), "modifiedFiles": sorted(modified),
            "previousSummary": path_entries[prev]["summary"] if prev >= 0 else None}


def summary_text(prep, custom_instructions=None):
    n = len(prep["messagesToSummarize"])
    goal = next((user_text(m) for m in prep["messagesToSummarize"] if m.get("role") == "user"), "")
    s = (
        "## Goal\n" + (goal[:200] or "Continue the current task.") + "\n\n"
        "## Constraints & Preferences\n- (none)\n\n"
        "## Progress\n### Done\n- [x] " + f"{n} earlier messages summarized\n\n"
        "### In Progress\n- [ ] Continue the conversation\n\n"
        "## Key Decisions\n- **Compaction**: produced by fake-pi\n\n"
        "## Next Steps\n1. Continue\n\n"
        "## Critical Context\n" + (f"- Custom instructions: {custom_instructions}\n" if custom_instructions else "- (none)\n")
    )
    sections = []
    if prep["readFiles"]:
        sections.append("<read-files>\n" + "\n".join(prep["readFiles"]) + "\n</read-files>")
    if prep["modifiedFiles"]:
        sections.append("<modified-files>\n" + "\n".join(prep["modifiedFiles"]) + "\n</modified-files>")
    if sections:
        s += "\n\n" + "\n\n".join(sections)
    return s


class AgentSession:
    def __init__(self, agent, sm, settings, registry, runner, llm, scoped_models=None):
        self.agent = agent
        self.sm = sm
        self.settings = settings
        self.registry = registry
        self.runner = runner
        self.llm = llm
        self.scoped_models = scoped_models or []
        self.listeners = []
        self.writer = None
        self.queue: asyncio.Queue = asyncio.Queue()
        self._enq = 0
        self._emitted = 0
        self._drain_waiters = []
        self._unsub = agent.subscribe(self._handle_agent_event)
        self._steering_messages: list = []
        self._follow_up_messages: list = []
        self._pending_bash: list = []
        self._pending_next_turn: list = []
        self._retry_attempt = 0
        self._retry_abort: AbortController | None = None
        self._retry_waiter = None
        self._last_assistant = None
        self._overflow_recovery_attempted = False
        self._compaction_abort = None
        self._auto_compaction_abort = None
        self._bash_proc = None
        self._bash_cancelled = False
        self._turn_index = 0
        agent.before_tool_call = self._before_tool_call
        spawn(self._worker())

    # -- events -----------------------------------------------------------------------
    def subscribe(self, fn):
        self.listeners.append(fn)

    def _emit(self, event):
        for l in list(self.listeners):
            l(event)

    def _handle_agent_event(self, event):
        self._enq += 1
        self.queue.put_nowait((self._enq, event))

    def _disconnect(self):
        if self._unsub:
            self._unsub()
            self._unsub = None

    def _reconnect(self):
        if self._unsub:
            return
        self._unsub = self.agent.subscribe(self._handle_agent_event)

    async def drain(self):
        """await this._agentEventQueue: until every queued event has been forwarded."""
        target = self._enq
        if self._emitted >= target:
            return
        fut = asyncio.get_running_loop().create_future()
        self._drain_waiters.append((target, fut))
        await fut

    def _mark_emitted(self, seq):
        self._emitted = seq
        keep = []
        for target, fut in self._drain_waiters:
            if seq >= target:
                if not fut.done():
                    fut.set_result(None)
            else:
                keep.append((target, fut))
        self._drain_waiters = keep

    async def _worker(self):
        while True:
            seq, event = await self.queue.get()
            try:
                await self._process_agent_event(event, seq)
            except Exception:  # noqa: BLE001
                import sys
                import traceback

                sys.stderr.write("fake-pi: event processing failed\n" + traceback.format_exc())
                self._mark_emitted(seq)

    async def _process_agent_event(self, event, seq):
        t = event["type"]
        if t == "message_start" and event["message"].get("role") == "user":
            self._overflow_recovery_attempted = False
            text = user_text(event["message"])
            if text:
                if text in self._steering_messages:
                    self._steering_messages.remove(text)
                elif text in self._follow_up_messages:
                    self._follow_up_messages.remove(text)
        await self._emit_extension_event(event)
        self._emit(event)
        self._mark_emitted(seq)
        if t == "message_end":
            msg = event["message"]
            role = msg.get("role")
            if role == "custom":
                self.sm.append_custom_message_entry(msg["customType"], msg["content"], msg["display"],
                                                    msg.get("details"))
            elif role in ("user", "assistant", "toolResult"):
                self.sm.append_message(msg)
            if role == "assistant":
                self._last_assistant = msg
                if msg.get("stopReason") != "error":
                    self._overflow_recovery_attempted = False
                if msg.get("stopReason") != "error" and self._retry_attempt > 0:
                    self._emit({"type": "auto_retry_end", "success": True, "attempt": self._retry_attempt})
                    self._retry_attempt = 0
        if t == "agent_end" and self._last_assistant is not None:
            msg = self._last_assistant
            self._last_assistant = None
            if self._is_retryable(msg):
                if await self._handle_retryable_error(msg):
                    return
            await self._check_compaction(msg)

    async def _emit_extension_event(self, event):
        r = self.runner
        if r is None:
            return
        t = event["type"]
        if t == "agent_start":
            self._turn_index = 0
            if r.has_handlers("agent_start"):
                await r.emit({"type": "agent_start"})
        elif t == "agent_end":
            if r.has_handlers("agent_end"):
                await r.emit({"type": "agent_end", "messages": event["messages"]})
        elif t == "turn_start":
            if r.has_handlers("turn_start"):
                await r.emit({"type": "turn_start", "turnIndex": self._turn_index, "timestamp": now_ms()})
        elif t == "turn_end":
            if r.has_handlers("turn_end"):
                await r.emit({"type": "turn_end", "turnIndex": self._turn_index, "message": event["message"],
                              "toolResults": event["toolResults"]})
            self._turn_index += 1

    async def _before_tool_call(self, tc, args, signal):
        r = self.runner
        if r is None or not r.has_handlers("tool_call"):
            return None
        await self.drain()
        return await r.emit({"type": "tool_call", "toolName": tc["name"], "toolCallId": tc["id"], "input": args})

    # -- state ------------------------------------------------------------------------
    @property
    def model(self):
        return self.agent.model

    @property
    def is_compacting(self):
        return self._auto_compaction_abort is not None or self._compaction_abort is not None

    @property
    def pending_message_count(self):
        return len(self._steering_messages) + len(self._follow_up_messages)

    def get_state(self):
        st = {}
        if self.model is not None:
            st["model"] = self.model
        st["thinkingLevel"] = self.agent.thinking_level
        st["isStreaming"] = self.agent.is_streaming
        st["isCompacting"] = self.is_compacting
        st["steeringMode"] = self.agent.steering_mode
        st["followUpMode"] = self.agent.follow_up_mode
        if self.sm.session_file is not None:
            st["sessionFile"] = self.sm.session_file
        st["sessionId"] = self.sm.session_id
        name = self.sm.get_session_name()
        if name is not None:
            st["sessionName"] = name
        st["autoCompactionEnabled"] = self.settings.compaction()["enabled"]
        st["messageCount"] = len(self.agent.messages)
        st["pendingMessageCount"] = self.pending_message_count
        return st

    # -- prompting ----------------------------------------------------------------------
    def prompt_start(self, text, images=None, streaming_behavior=None):
        """Synchronous prefix of AgentSession.prompt(). Raises for a synchronous rejection
        (written before the success response); returns a coroutine for the rest or None."""
        if text is None:
            raise TypeError("Cannot read properties of undefined (reading 'startsWith')")
        if not isinstance(text, str):
            raise TypeError("text.startsWith is not a function")
        if text.startswith("/"):
            handled, pending = self._try_extension_command_sync(text)

            async def rest():
                if handled:
                    if pending is not None:
                        try:
                            await pending
                        except Exception as e:  # noqa: BLE001
                            name = text[1:].split(" ", 1)[0]
                            self.runner.emit_error({"extensionPath": f"command:{name}", "event": "command",
                                                    "error": str(e)})
                    return
                await self._prompt_after_command(text, images, streaming_behavior)

            return rest()
        if self.runner is not None and self.runner.has_handlers("input"):
            return self._prompt_after_command(text, images, streaming_behavior)
        return self._prompt_checks(text, images, streaming_behavior)

    def _try_extension_command_sync(self, text):
        if self.runner is None:
            return False, None
        sp = text.find(" ")
        name = text[1:] if sp == -1 else text[1:sp]
        args = "" if sp == -1 else text[sp + 1 :]
        cmd = self.runner.get_command(name)
        if cmd is None:
            return False, None
        try:
            return True, cmd.handler(args, self.runner.extensions[0].ui)
        except Exception as e:  # noqa: BLE001
            self.runner.emit_error({"extensionPath": f"command:{name}", "event": "command", "error": str(e)})
            return True, None

    async def _prompt_after_command(self, text, images, sb):
        if self.runner is not None and self.runner.has_handlers("input"):
            res = await self.runner.emit({"type": "input", "text": text, "images": images, "source": "rpc"})
            if res and res.get("action") == "handled":
                return
        pending = self._prompt_checks(text, images, sb)
        if pending is not None:
            await pending

    def _prompt_checks(self, text, images, sb):
        if self.agent.is_streaming:
            if not sb:
                raise RuntimeError("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') "
                                   "to queue the message.")
            if sb == "followUp":
                self._queue_follow_up(text, images)
            else:
                self._queue_steer(text, images)
            return None
        self._flush_pending_bash()
        if self.model is None:
            raise RuntimeError("No model selected.\n\nUse /login or set an API key environment variable. See "
                               f"{DOCS_PATH}/providers.md\n\nThen use /model to select a model.")
        return self._prompt_run(text, images)

    async def _prompt_run(self, text, images):
        await asyncio.sleep(PRERUN_MS / 1000)  # getApiKey is async
        if not self.registry.get_api_key(self.model):
            raise RuntimeError(f"No API key found for {self.model['provider']}.\n\nUse /login or set an API key "
                               f"environment variable. See {DOCS_PATH}/providers.md")
        last = next((m for m in reversed(self.agent.messages) if m.get("role") == "assistant"), None)
        if last is not None:
            await self._check_compaction(last, skip_aborted=False)
        content = [{"type": "text", "text": text}]
        if images is not None:
            if not isinstance(images, list):
                raise TypeError("currentImages is not iterable")
            content.extend(images)
        messages = [{"role": "user", "content": content, "timestamp": now_ms()}]
        messages.extend(self._pending_next_turn)
        self._pending_next_turn = []
        if self.runner is not None and self.runner.has_handlers("before_agent_start"):
            res = await self.runner.emit({"type": "before_agent_start", "prompt": text, "images": images})
            for cm in (res or {}).get("messages", []):
                m = {"role": "custom", "customType": cm["customType"], "content": cm["content"],
                     "display": cm["display"]}
                if cm.get("details") is not None:
                    m["details"] = cm["details"]
                m["timestamp"] = now_ms()
                messages.append(m)
        await self.agent.prompt(messages)

    def _check_no_extension_command(self, text):
        if text is None:
            raise TypeError("Cannot read properties of undefined (reading 'startsWith')")
        if not isinstance(text, str):
            raise TypeError("text.startsWith is not a function")
        if text.startswith("/") and self.runner is not None:
            sp = text.find(" ")
            name = text[1:] if sp == -1 else text[1:sp]
            if self.runner.get_command(name):
                raise RuntimeError(f'Extension command "/{name}" cannot be queued. Use prompt() or execute the '
                                   "command when not streaming.")

    def steer(self, text, images=None):
        self._check_no_extension_command(text)
        self._queue_steer(text, images)

    def follow_up(self, text, images=None):
        self._check_no_extension_command(text)
        self._queue_follow_up(text, images)

    def _user_msg(self, text, images):
        content = [{"type": "text", "text": text}]
        if images:
            if not isinstance(images, list):
                raise TypeError("images is not iterable")
            content.extend(images)
        return {"role": "user", "content": content, "timestamp": now_ms()}

    def _queue_steer(self, text, images):
        msg = self._user_msg(text, images)
        self._steering_messages.append(text)
        self.agent.steer(msg)

    def _queue_follow_up(self, text, images):
        msg = self._user_msg(text, images)
        self._follow_up_messages.append(text)
        self.agent.follow_up(msg)

    async def abort(self):
        waiter = self._retry_waiter if self._retry_abort is not None else None
        self.abort_retry()
        if waiter is not None:
            await asyncio.shield(waiter)  # "Retry cancelled" is emitted first
        self.agent.abort()
        await self.agent.wait_for_idle()
        await self.drain()

    # -- retry ------------------------------------------------------------------------
    def _is_retryable(self, msg):
        if msg.get("stopReason") != "error" or not msg.get("errorMessage"):
            return False
        window = (self.model or {}).get("contextWindow", 0)
        if is_context_overflow(msg, window):
            return False
        return bool(RETRYABLE_RE.search(msg["errorMessage"]))

    async def _handle_retryable_error(self, msg):
        s = self.settings.retry()
        if not s["enabled"]:
            return False
        self._retry_attempt += 1
        if self._retry_attempt > s["maxRetries"]:
            ev = {"type": "auto_retry_end", "success": False, "attempt": self._retry_attempt - 1}
            if msg.get("errorMessage") is not None:
                ev["finalError"] = msg["errorMessage"]
            self._emit(ev)
            self._retry_attempt = 0
            return False
        delay = s["baseDelayMs"] * 2 ** (self._retry_attempt - 1)
        self._emit({"type": "auto_retry_start", "attempt": self._retry_attempt, "maxAttempts": s["maxRetries"],
                    "delayMs": delay, "errorMessage": msg.get("errorMessage") or "Unknown error"})
        ms = self.agent.messages
        if ms and ms[-1].get("role") == "assistant":
            self.agent.replace_messages(ms[:-1])
        self._retry_abort = AbortController()
        self._retry_waiter = asyncio.get_running_loop().create_future()
        try:
            ok = await sleep_ms(delay, self._retry_abort.signal)
            return self._after_retry_sleep(ok)
        finally:
            if not self._retry_waiter.done():
                self._retry_waiter.set_result(None)

    def _after_retry_sleep(self, ok):
        if not ok:
            attempt = self._retry_attempt
            self._retry_attempt = 0
            self._retry_abort = None
            self._emit({"type": "auto_retry_end", "success": False, "attempt": attempt, "finalError": "Retry cancelled"})
            return False
        self._retry_abort = None
        set_timeout(0, lambda: spawn(self._continue_quietly()))
        return True

    async def _continue_quietly(self):
        try:
            await self.agent.continue_()
        except Exception:  # noqa: BLE001
            pass

    def abort_retry(self):
        if self._retry_abort:
            self._retry_abort.abort()

    # -- compaction ---------------------------------------------------------------------
    async def _check_compaction(self, msg, skip_aborted=True):
        settings = self.settings.compaction()
        if not settings["enabled"]:
            return
        if skip_aborted and msg.get("stopReason") == "aborted":
            return
        window = (self.model or {}).get("contextWindow", 0)
        same_model = self.model is not None and msg.get("provider") == self.model["provider"] and \
            msg.get("model") == self.model["id"]
        branch = self.sm.get_branch()
        comp = next((e for e in reversed(branch) if e.get("type") == "compaction"), None)
        if comp is not None and msg.get("timestamp", 0) <= iso_to_ms(comp["timestamp"]):
            return
        if same_model and is_context_overflow(msg, window):
            if self._overflow_recovery_attempted:
                self._emit({"type": "auto_compaction_end", "aborted": False, "willRetry": False,
                            "errorMessage": "Context overflow recovery failed after one compact-and-retry attempt. "
                                            "Try reducing context or switching to a larger-context model."})
                return
            self._overflow_recovery_attempted = True
            ms = self.agent.messages
            if ms and ms[-1].get("role") == "assistant":
                self.agent.replace_messages(ms[:-1])
            await self._run_auto_compaction("overflow", True)
            return
        if msg.get("stopReason") == "error":
            est = estimate_context_tokens(self.agent.messages)
            if est["lastUsageIndex"] is None:
                return
            tokens = est["tokens"]
        else:
            tokens = calculate_context_tokens(msg["usage"])
        if tokens > window - settings["reserveTokens"]:
            await self._run_auto_compaction("threshold", False)

    async def _llm_compact(self, prep, custom_instructions, signal):
        RT.hold()
        try:
            await sleep_ms(COMPACT_MS, signal)
        finally:
            RT.release()
        return {"summary": summary_text(prep, custom_instructions), "firstKeptEntryId": prep["firstKeptEntryId"],
                "tokensBefore": prep["tokensBefore"],
                "details": {"readFiles": prep["readFiles"], "modifiedFiles": prep["modifiedFiles"]}}

    def _apply_compaction(self, result):
        self.sm.append_compaction(result["summary"], result["firstKeptEntryId"], result["tokensBefore"],
                                  result.get("details"), False)
        self.agent.replace_messages(self.sm.build_session_context()["messages"])

    async def _run_auto_compaction(self, reason, will_retry):
        settings = self.settings.compaction()
        self._emit({"type": "auto_compaction_start", "reason": reason})
        ctl = self._auto_compaction_abort = AbortController()
        end = {"type": "auto_compaction_end", "aborted": False, "willRetry": False}
        try:
            if self.model is None or not self.registry.get_api_key(self.model):
                self._emit(end)
                return
            branch = self.sm.get_branch()
            prep = prepare_compaction(branch, settings)
            if prep is None:
                self._emit(end)
                return
            if self.runner is not None and self.runner.has_handlers("session_before_compact"):
                res = await self.runner.emit({"type": "session_before_compact", "preparation": prep,
                                              "branchEntries": branch, "signal": ctl.signal})
                if res and res.get("cancel"):
                    self._emit({"type": "auto_compaction_end", "aborted": True, "willRetry": False})
                    return
            result = await self._llm_compact(prep, None, ctl.signal)
            if ctl.signal.aborted:
                self._emit({"type": "auto_compaction_end", "aborted": True, "willRetry": False})
                return
            self._apply_compaction(result)
            self._emit({"type": "auto_compaction_end", "result": result, "aborted": False, "willRetry": will_retry})
            if will_retry:
                ms = self.agent.messages
                if ms and ms[-1].get("role") == "assistant" and ms[-1].get("stopReason") == "error":
                    self.agent.replace_messages(ms[:-1])
                set_timeout(100, lambda: spawn(self._continue_quietly()))
            elif self.agent.has_queued_messages():
                set_timeout(100, lambda: spawn(self._continue_quietly()))
        except Exception as e:  # noqa: BLE001
            prefix = "Context overflow recovery failed: " if reason == "overflow" else "Auto-compaction failed: "
            self._emit({"type": "auto_compaction_end", "aborted": False, "willRetry": False,
                        "errorMessage": prefix + str(e)})
        finally:
            self._auto_compaction_abort = None

    async def compact(self, custom_instructions=None):
        self._disconnect()
        await self.abort()
        ctl = self._compaction_abort = AbortController()
        try:
            if self.model is None:
                raise RuntimeError("No model selected")
            if not self.registry.get_api_key(self.model):
                raise RuntimeError(f"No API key for {self.model['provider']}")
            branch = self.sm.get_branch()
            prep = prepare_compaction(branch, self.settings.compaction())
            if prep is None:
                if branch and branch[-1].get("type") == "compaction":
                    raise RuntimeError("Already compacted")
                raise RuntimeError("Nothing to compact (session too small)")
            if self.runner is not None and self.runner.has_handlers("session_before_compact"):
                res = await self.runner.emit({"type": "session_before_compact", "preparation": prep,
                                              "branchEntries": branch, "customInstructions": custom_instructions,
                                              "signal": ctl.signal})
                if res and res.get("cancel"):
                    raise RuntimeError("Compaction cancelled")
            result = await self._llm_compact(prep, custom_instructions, ctl.signal)
            if ctl.signal.aborted:
                raise RuntimeError("Compaction cancelled")
            self._apply_compaction(result)
            return result
        finally:
            self._compaction_abort = None
            self._reconnect()

    # -- models / thinking ----------------------------------------------------------------
    def supports_thinking(self):
        return bool(self.model and self.model.get("reasoning"))

    def available_thinking_levels(self):
        if not self.supports_thinking():
            return ["off"]
        return THINKING_LEVELS_WITH_XHIGH if supports_xhigh(self.model) else THINKING_LEVELS

    def _clamp(self, level, available):
        ordered = THINKING_LEVELS_WITH_XHIGH
        if level not in ordered:
            return available[0] if available else "off"
        i = ordered.index(level)
        for c in ordered[i:]:
            if c in available:
                return c
        for c in reversed(ordered[:i]):
            if c in available:
                return c
        return available[0] if available else "off"

    def set_thinking_level(self, level):
        avail = self.available_thinking_levels()
        eff = level if level in avail else self._clamp(level, avail)
        changing = eff != self.agent.thinking_level
        self.agent.thinking_level = eff
        if changing:
            self.sm.append_thinking_level_change(eff)
            if self.supports_thinking() or eff != "off":
                self.settings.set_default_thinking_level(eff)

    def cycle_thinking_level(self):
        if not self.supports_thinking():
            return None
        levels = self.available_thinking_levels()
        cur = levels.index(self.agent.thinking_level) if self.agent.thinking_level in levels else -1
        nxt = levels[(cur + 1) % len(levels)]
        self.set_thinking_level(nxt)
        return nxt

    def _thinking_for_switch(self, explicit=None):
        if explicit is not None:
            return explicit
        if not self.supports_thinking():
            return self.settings.default_thinking_level() or "medium"
        return self.agent.thinking_level

    async def set_model(self, model):
        if not self.registry.get_api_key(model):
            raise RuntimeError(f"No API key for {model['provider']}/{model['id']}")
        level = self._thinking_for_switch()
        self.agent.model = model
        self.sm.append_model_change(model["provider"], model["id"])
        self.settings.set_default_model_and_provider(model["provider"], model["id"])
        self.set_thinking_level(level)

    async def cycle_model(self):
        if self.scoped_models:
            candidates = []
            for sm in self.scoped_models:
                if self.registry.get_api_key(sm["model"]):
                    candidates.append(sm)
            if len(candidates) <= 1:
                return None
            cur = next((i for i, c in enumerate(candidates) if c["model"] is self.model), 0)
            nxt = candidates[(cur + 1) % len(candidates)]
            level = self._thinking_for_switch(nxt.get("thinkingLevel"))
            self.agent.model = nxt["model"]
            self.sm.append_model_change(nxt["model"]["provider"], nxt["model"]["id"])
            self.settings.set_default_model_and_provider(nxt["model"]["provider"], nxt["model"]["id"])
            self.set_thinking_level(level)
            return {"model": self.model, "thinkingLevel": self.agent.thinking_level, "isScoped": True}
        avail = self.registry.get_available()
        if len(avail) <= 1:
            return None
        cur = next((i for i, m in enumerate(avail) if self.model is not None and m["provider"] == self.model["provider"]
                    and m["id"] == self.model["id"]), 0)
        nxt = avail[(cur + 1) % len(avail)]
        if not self.registry.get_api_key(nxt):
            raise RuntimeError(f"No API key for {nxt['provider']}/{nxt['id']}")
        level = self._thinking_for_switch()
        self.agent.model = nxt
        self.sm.append_model_change(nxt["provider"], nxt["id"])
        self.settings.set_default_model_and_provider(nxt["provider"], nxt["id"])
        self.set_thinking_level(level)
        return {"model": nxt, "thinkingLevel": self.agent.thinking_level, "isScoped": False}

    # -- bash -------------------------------------------------------------------------
    async def execute_bash(self, command):
        shell = self.settings.s.get("shellPath") or ("/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh")
        prefix = self.settings.s.get("shellCommandPrefix")
        resolved = f"{prefix}\n{command}" if prefix else command
        RT.hold()
        try:
            proc = await asyncio.create_subprocess_exec(
                shell, "-c", resolved, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True)
            self._bash_proc = proc
            chunks = []
            total = 0
            temp_path = None
            temp_f = None
            while True:
                data = await proc.stdout.read(65536)
                if not data:
                    break
                total += len(data)
                text = ANSI_RE.sub("", data.decode("utf-8", "replace")).replace("\r", "")
                text = "".join(ch for ch in text if ch in "\t\n" or ord(ch) >= 32)
                if total > DEFAULT_MAX_BYTES and temp_path is None:
                    temp_path = os.path.join(tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")
                    temp_f = open(temp_path, "w", encoding="utf-8")
                    temp_f.write("".join(chunks))
                if temp_f:
                    temp_f.write(text)
                chunks.append(text)
            code = await proc.wait()
            if temp_f:
                temp_f.close()
        finally:
            self._bash_proc = None
            RT.release()
        full = "".join(chunks)
        tr = truncate_tail(full)
        cancelled = code < 0
        result = {"output": tr["content"] if tr["truncated"] else full}
        if not cancelled:
            result["exitCode"] = code
        result["cancelled"] = cancelled
        result["truncated"] = tr["truncated"]
        if temp_path:
            result["fullOutputPath"] = temp_path
        self._record_bash(command, result)
        return result

    def _record_bash(self, command, result):
        msg = {"role": "bashExecution", "command": command, "output": result["output"]}
        if "exitCode" in result:
            msg["exitCode"] = result["exitCode"]
        msg["cancelled"] = result["cancelled"]
        msg["truncated"] = result["truncated"]
        if "fullOutputPath" in result:
            msg["fullOutputPath"] = result["fullOutputPath"]
        msg["timestamp"] = now_ms()
        if self.agent.is_streaming:
            self._pending_bash.append(msg)
        else:
            self.agent.append_message(msg)
            self.sm.append_message(msg)

    def abort_bash(self):
        p = self._bash_proc
        if p is not None and p.returncode is None:
            try:
                os.killpg(p.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass

    def _flush_pending_bash(self):
        for m in self._pending_bash:
            self.agent.append_message(m)
            self.sm.append_message(m)
        self._pending_bash = []

    # -- sessions ----------------------------------------------------------------------
    async def new_session(self, parent_session=None):
        prev = self.sm.session_file
        if self.runner is not None and self.runner.has_handlers("session_before_switch"):
            res = await self.runner.emit({"type": "session_before_switch", "reason": "new"})
            if res and res.get("cancel"):
                return False
        self._disconnect()
        await self.abort()
        self.agent.reset()
        self.sm.new_session(parent_session=parent_session)
        self._steering_messages = []
        self._follow_up_messages = []
        self._pending_next_turn = []
        self.llm.queue = []
        self.sm.append_thinking_level_change(self.agent.thinking_level)
        self._reconnect()
        if self.runner is not None and self.runner.has_handlers("session_switch"):
            await self.runner.emit({"type": "session_switch", "reason": "new", "previousSessionFile": prev})
        return True

    async def switch_session(self, path):
        prev = self.sm.session_file
        if self.runner is not None and self.runner.has_handlers("session_before_switch"):
            res = await self.runner.emit({"type": "session_before_switch", "reason": "resume",
                                          "targetSessionFile": path})
            if res and res.get("cancel"):
                return False
        self._disconnect()
        await self.abort()
        self._steering_messages = []
        self._follow_up_messages = []
        self._pending_next_turn = []
        self.llm.queue = []
        try:
            if not isinstance(path, str):
                raise TypeError('The "path" argument must be of type string. Received undefined')
            if os.path.isdir(path):
                raise RuntimeError("EISDIR: illegal operation on a directory, read")
            self.sm.set_session_file(path)
            ctx = self.sm.build_session_context()
            if self.runner is not None and self.runner.has_handlers("session_switch"):
                await self.runner.emit({"type": "session_switch", "reason": "resume", "previousSessionFile": prev})
            self.agent.replace_messages(ctx["messages"])
            if ctx["model"]:
                match = next((m for m in self.registry.get_available() if m["provider"] == ctx["model"]["provider"]
                              and m["id"] == ctx["model"]["modelId"]), None)
                if match:
                    self.agent.model = match
            has_thinking = any(e.get("type") == "thinking_level_change" for e in self.sm.get_branch())
            if has_thinking:
                self.set_thinking_level(ctx["thinkingLevel"])
            else:
                default = self.settings.default_thinking_level() or "medium"
                avail = self.available_thinking_levels()
                eff = default if default in avail else self._clamp(default, avail)
                self.agent.thinking_level = eff
                self.sm.append_thinking_level_change(eff)
        finally:
            self._reconnect()
        return True

    async def fork(self, entry_id):
        prev = self.sm.session_file
        entry = self.sm.get_entry(entry_id)
        if not entry or entry.get("type") != "message" or entry["message"].get("role") != "user":
            raise RuntimeError("Invalid entry ID for forking")
        text = user_text(entry["message"])
        self._pending_next_turn = []
        if not entry.get("parentId"):
            self.sm.new_session(parent_session=prev)
        else:
            self.sm.create_branched_session(entry["parentId"])
        self.agent.replace_messages(self.sm.build_session_context()["messages"])
        return {"text": text, "cancelled": False}

    def get_fork_messages(self):
        out = []
        for e in self.sm.get_entries():
            if e.get("type") == "message" and e["message"].get("role") == "user":
                t = user_text(e["message"])
                if t:
                    out.append({"entryId": e["id"], "text": t})
        return out

    def get_session_stats(self):
        ms = self.agent.messages
        stats = {}
        if self.sm.session_file is not None:
            stats["sessionFile"] = self.sm.session_file
        ti = to = cr = cw = 0
        cost = 0
        calls = 0
        for m in ms:
            if m.get("role") == "assistant":
                calls += sum(1 for c in m.get("content", []) if c.get("type") == "toolCall")
                u = m["usage"]
                ti += u["input"]
                to += u["output"]
                cr += u["cacheRead"]
                cw += u["cacheWrite"]
                cost += u["cost"]["total"]
        from .jsonio import jsnum

        stats.update({
            "sessionId": self.sm.session_id,
            "userMessages": sum(1 for m in ms if m.get("role") == "user"),
            "assistantMessages": sum(1 for m in ms if m.get("role") == "assistant"),
            "toolCalls": calls,
            "toolResults": sum(1 for m in ms if m.get("role") == "toolResult"),
            "totalMessages": len(ms),
            "tokens": {"input": ti, "output": to, "cacheRead": cr, "cacheWrite": cw, "total": ti + to + cr + cw},
            "cost": jsnum(cost),
        })
        return stats

    def get_last_assistant_text(self):
        for m in reversed(self.agent.messages):
            if m.get("role") != "assistant":
                continue
            if m.get("stopReason") == "aborted" and not m.get("content"):
                continue
            text = "".join(c.get("text", "") for c in m.get("content", []) if c.get("type") == "text")
            return text.strip() or None
        return None

    def set_session_name(self, name):
        self.sm.append_session_info(name)

    def export_html(self, output_path=None):
        import html as _html

        sf = self.sm.session_file
        if not sf:
            raise RuntimeError("Cannot export in-memory session to HTML")
        if not os.path.exists(sf):
            raise RuntimeError("Nothing to export yet - start a conversation first")
        if not output_path:
            output_path = f"pi-session-{os.path.basename(sf)[:-len('.jsonl')] if sf.endswith('.jsonl') else os.path.basename(sf)}.html"
        rows = []
        for e in self.sm.get_entries():
            if e.get("type") == "message":
                m = e["message"]
                rows.append(f"<div class=\"{_html.escape(m.get('role', ''))}\">{_html.escape(user_text(m) or '')}</div>")
        try:
            with open(output_path, "w", encoding="utf-8") as f:
                f.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>pi session</title></head><body>"
                        + "".join(rows) + "</body></html>")
        except OSError as e:
            raise RuntimeError(node_fs_error(e, "open", output_path)) from None
        return output_path
