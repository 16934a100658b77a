"""Emulation of pi-agent-core's Agent + agent-loop.ts, event for event.

Events are dicts in pi's key order. message_update events carry a pre-serialized line in
"_raw" (the partial message is snapshotted when the event is emitted).
"""

from __future__ import annotations

import asyncio
import copy
import random

from .provider import StreamThrow, stream_reply
from .runtime import RT, AbortController, spawn
from .session import now_ms
from .tools import ToolError


def error_tool_result(message: str):
    return {"content": [{"type": "text", "text": message}], "details": {}}


class Agent:
    def __init__(self, model, thinking_level, tools, steering_mode="one-at-a-time", follow_up_mode="one-at-a-time"):
        self.messages: list = []
        self.model = model
        self.thinking_level = thinking_level
        self.tools: list = tools
        self.is_streaming = False
        self.stream_message = None
        self.pending_tool_calls: set = set()
        self.error = None
        self.steering_queue: list = []
        self.follow_up_queue: list = []
        self.steering_mode = steering_mode
        self.follow_up_mode = follow_up_mode
        self.listeners: list = []
        self.abort_controller: AbortController | None = None
        self.running: asyncio.Future | None = None
        self.before_tool_call = None  # async (tool_call, args, signal) -> {"block", "reason"} | None
        self.llm = None  # scenarios.ScriptedLlm
        self.rng = random.Random()
        self.write_garbage = None

    # -- state -----------------------------------------------------------------
    def subscribe(self, fn):
        self.listeners.append(fn)

        def unsubscribe():
            if fn in self.listeners:
                self.listeners.remove(fn)

        return unsubscribe

    def replace_messages(self, ms):
        self.messages = list(ms)

    def append_message(self, m):
        self.messages = self.messages + [m]

    def steer(self, m):
        self.steering_queue.append(m)

    def follow_up(self, m):
        self.follow_up_queue.append(m)

    def has_queued_messages(self):
        return bool(self.steering_queue or self.follow_up_queue)

    def _dequeue(self, which):
        q = self.steering_queue if which == "steer" else self.follow_up_queue
        mode = self.steering_mode if which == "steer" else self.follow_up_mode
        if mode == "one-at-a-time":
            if q:
                return [q.pop(0)]
            return []
        out = list(q)
        q.clear()
        return out

    def abort(self):
        if self.abort_controller:
            self.abort_controller.abort()

    async def wait_for_idle(self):
        if self.running is not None:
            await asyncio.shield(self.running)

    def reset(self):
        self.messages = []
        self.is_streaming = False
        self.stream_message = None
        self.pending_tool_calls = set()
        self.error = None
        self.steering_queue = []
        self.follow_up_queue = []

    def _emit(self, event):
        for l in list(self.listeners):
            l(event)

    def _process_loop_event(self, event):
        t = event["type"]
        if t in ("message_start", "message_update"):
            self.stream_message = event.get("message")
        elif t == "message_end":
            self.stream_message = None
            self.append_message(event["message"])
        elif t == "tool_execution_start":
            self.pending_tool_calls.add(event["toolCallId"])
        elif t == "tool_execution_end":
            self.pending_tool_calls.discard(event["toolCallId"])
        elif t == "turn_end":
            m = event["message"]
            if m.get("role") == "assistant" and m.get("errorMessage"):
                self.error = m["errorMessage"]
        elif t == "agent_end":
            self.is_streaming = False
            self.stream_message = None
        self._emit(event)

    # -- running ---------------------------------------------------------------
    async def prompt(self, msgs):
        if self.is_streaming:
            raise RuntimeError(
                "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
            )
        if not self.model:
            raise RuntimeError("No model configured")
        await self._run_loop(list(msgs))

    async def continue_(self):
        if self.is_streaming:
            raise RuntimeError("Agent is already processing. Wait for completion before continuing.")
        if not self.messages:
            raise RuntimeError("No messages to continue from")
        if self.messages[-1].get("role") == "assistant":
            steering = self._dequeue("steer")
            if steering:
                await self._run_loop(steering, skip_initial_steering_poll=True)
                return
            follow = self._dequeue("follow")
            if follow:
                await self._run_loop(follow)
                return
            raise RuntimeError("Cannot continue from message role: assistant")
        await self._run_loop(None)

    async def _run_loop(self, messages, skip_initial_steering_poll=False):
        model = self.model
        if not model:
            raise RuntimeError("No model configured")
        loop = asyncio.get_running_loop()
        self.running = loop.create_future()
        self.abort_controller = AbortController()
        self.is_streaming = True
        self.stream_message = None
        self.error = None
        skip = [skip_initial_steering_poll]
        signal = self.abort_controller.signal

        async def get_steering():
            if skip[0]:
                skip[0] = False
                return []
            return self._dequeue("steer")

        async def get_follow_up():
            return self._dequeue("follow")

        cfg = {"model": model, "get_steering": get_steering, "get_follow_up": get_follow_up}
        context = {"messages": list(self.messages), "tools": list(self.tools)}
        try:
            if messages:
                await self._agent_loop(messages, context, cfg, signal)
            else:
                await self._agent_loop_continue(context, cfg, signal)
        except Exception as err:  # the loop itself threw
            msg = str(err) or err.__class__.__name__
            error_msg = {
                "role": "assistant",
                "content": [{"type": "text", "text": ""}],
                "api": model["api"],
                "provider": model["provider"],
                "model": model["id"],
                "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                          "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "aborted" if signal.aborted else "error",
                "errorMessage": msg,
                "timestamp": now_ms(),
            }
            self.append_message(error_msg)
            self.error = msg
            self.is_streaming = False
            self._emit({"type": "agent_end", "messages": [error_msg]})
        finally:
            self.is_streaming = False
            self.stream_message = None
            self.pending_tool_calls = set()
            self.abort_controller = None
            fut = self.running
            self.running = None
            if fut is not None and not fut.done():
                fut.set_result(None)

    # -- agent-loop.ts ----------------------------------------------------------
    async def _agent_loop(self, prompts, context, cfg, signal):
        new_messages = list(prompts)
        context["messages"] = context["messages"] + list(prompts)
        emit = self._process_loop_event
        emit({"type": "agent_start"})
        emit({"type": "turn_start"})
        for p in prompts:
            emit({"type": "message_start", "message": p})
            emit({"type": "message_end", "message": p})
        await self._run(context, new_messages, cfg, signal)
        return new_messages

    async def _agent_loop_continue(self, context, cfg, signal):
        if not context["messages"]:
            raise RuntimeError("Cannot continue: no messages in context")
        if context["messages"][-1].get("role") == "assistant":
            raise RuntimeError("Cannot continue from message role: assistant")
        new_messages = []
        emit = self._process_loop_event
        emit({"type": "agent_start"})
        emit({"type": "turn_start"})
        await self._run(context, new_messages, cfg, signal)
        return new_messages

    async def _run(self, context, new_messages, cfg, signal):
        emit = self._process_loop_event
        first_turn = True
        pending = await cfg["get_steering"]()
        while True:
            has_more_tool_calls = True
            steering_after_tools = None
            while has_more_tool_calls or pending:
                if not first_turn:
                    emit({"type": "turn_start"})
                else:
                    first_turn = False
                if pending:
                    for m in pending:
                        emit({"type": "message_start", "message": m})
                        emit({"type": "message_end", "message": m})
                        context["messages"].append(m)
                        new_messages.append(m)
                    pending = []
                message = await self._stream_assistant_response(context, cfg, signal)
                new_messages.append(message)
                if message["stopReason"] in ("error", "aborted"):
                    emit({"type": "turn_end", "message": message, "toolResults": []})
                    emit({"type": "agent_end", "messages": new_messages})
                    return
                tool_calls = [c for c in message["content"] if c.get("type") == "toolCall"]
                has_more_tool_calls = bool(tool_calls)
                tool_results = []
                if has_more_tool_calls:
                    results, steering = await self._execute_tool_calls(context, message, tool_calls, cfg, signal)
                    tool_results.extend(results)
                    steering_after_tools = steering
                    for r in tool_results:
                        context["messages"].append(r)
                        new_messages.append(r)
                emit({"type": "turn_end", "message": message, "toolResults": tool_results})
                if steering_after_tools:
                    pending = steering_after_tools
                    steering_after_tools = None
                else:
                    pending = await cfg["get_steering"]()
            follow = await cfg["get_follow_up"]()
            if follow:
                pending = follow
                continue
            break
        emit({"type": "agent_end", "messages": new_messages})

    async def _stream_assistant_response(self, context, cfg, signal):
        emit = self._process_loop_event
        reply = self.llm.next_reply(context["messages"], self)
        tokens = self.llm.estimate_context_tokens(context["messages"])
        gen = stream_reply(reply, cfg["model"], tokens, signal, self.rng, self.write_garbage)
        partial = None
        RT.hold()  # an open HTTP stream keeps Node alive
        try:
            async for kind, payload in gen:
                if kind == "start":
                    partial = payload
                    context["messages"].append(partial)
                    emit({"type": "message_start", "message": copy.deepcopy(partial)})
                elif kind == "update":
                    emit({"type": "message_update", "_raw": payload, "message": partial})
                else:
                    final = payload
                    if partial is not None:
                        context["messages"][-1] = final
                    else:
                        context["messages"].append(final)
                        emit({"type": "message_start", "message": copy.deepcopy(final)})
                    emit({"type": "message_end", "message": final})
                    return final
        except StreamThrow as e:
            raise RuntimeError(str(e)) from None
        finally:
            RT.release()
        raise RuntimeError("stream ended without a result")

    async def _execute_tool_calls(self, context, assistant_message, tool_calls, cfg, signal):
        """executeToolCallsParallel (the default toolExecution mode)."""
        emit = self._process_loop_event
        results = []
        runnable = []
        for index, tc in enumerate(tool_calls):
            emit({"type": "tool_execution_start", "toolCallId": tc["id"], "toolName": tc["name"],
                  "args": tc["arguments"]})
            prep = await self._prepare_tool_call(context, assistant_message, tc, signal)
            if prep[0] == "immediate":
                results.append(self._emit_outcome(tc, prep[1], prep[2]))
            else:
                runnable.append(prep)
            steering = await cfg["get_steering"]()
            if steering:
                for r in runnable:
                    results.append(self._skip_tool_call(r[1], emit_start=False))
                for skipped in tool_calls[index + 1 :]:
                    results.append(self._skip_tool_call(skipped))
                return results, steering
        running = [(p, spawn(self._execute_prepared(p, signal))) for p in runnable]
        for p, task in running:
            result, is_error = await task
            results.append(self._emit_outcome(p[1], result, is_error))
        steering = await cfg["get_steering"]()
        return results, (steering or None)

    async def _prepare_tool_call(self, context, assistant_message, tc, signal):
        tool = next((t for t in context["tools"] if t.name == tc["name"]), None)
        if tool is None:
            return ("immediate", error_tool_result(f"Tool {tc['name']} not found"), True)
        try:
            if self.before_tool_call:
                res = await self.before_tool_call(tc, tc["arguments"], signal)
                if res and res.get("block"):
                    return ("immediate", error_tool_result(res.get("reason") or "Tool execution was blocked"), True)
            return ("prepared", tc, tool, tc["arguments"])
        except Exception as e:
            return ("immediate", error_tool_result(str(e)), True)

    async def _execute_prepared(self, prep, signal):
        _, tc, tool, args = prep

        def on_update(partial_result):
            self._process_loop_event({"type": "tool_execution_update", "toolCallId": tc["id"], "toolName": tc["name"],
                                      "args": tc["arguments"], "partialResult": copy.deepcopy(partial_result)})

        try:  # simulated tools hold the process alive only while they sleep (like a child process)
            result = await tool.execute(tc["id"], args, signal, on_update)
            return result, False
        except ToolError as e:
            return error_tool_result(str(e)), True
        except Exception as e:  # noqa: BLE001
            return error_tool_result(str(e)), True

    def _emit_outcome(self, tc, result, is_error):
        emit = self._process_loop_event
        emit({"type": "tool_execution_end", "toolCallId": tc["id"], "toolName": tc["name"], "result": result,
              "isError": is_error})
        msg = {"role": "toolResult", "toolCallId": tc["id"], "toolName": tc["name"], "content": result["content"]}
        if "details" in result and result["details"] is not None:
            msg["details"] = result["details"]
        msg["isError"] = is_error
        msg["timestamp"] = now_ms()
        emit({"type": "message_start", "message": msg})
        emit({"type": "message_end", "message": msg})
        return msg

    def _skip_tool_call(self, tc, emit_start=True):
        if emit_start:
            self._process_loop_event({"type": "tool_execution_start", "toolCallId": tc["id"], "toolName": tc["name"],
                                      "args": tc["arguments"]})
        return self._emit_outcome(tc, error_tool_result("Skipped due to queued user message."), True)
