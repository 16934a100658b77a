"""Node-like runtime helpers: timers that keep the process alive, abort signals, exit on idle."""

from __future__ import annotations

import asyncio
import os
import sys


class Runtime:
    """Counts the handles that would keep a Node process alive (timers, sockets, child
    processes). After stdin EOF the process exits once none is left, like Node does when its
    event loop empties (RPC mode has no stdin-EOF handler of its own)."""

    def __init__(self):
        self.alive = 0
        self.eof = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self._checking = False
        self.exit_hooks = []

    def hold(self):
        self.alive += 1

    def release(self):
        self.alive -= 1
        if self.eof and self.alive <= 0:
            self.schedule_exit_check()

    def schedule_exit_check(self):
        if self._checking or self.loop is None:
            return
        self._checking = True
        self.loop.call_soon(self._check, 0)

    def _check(self, n):
        """Node exits when no handle is left *and* no (micro)task is runnable."""
        if self.alive > 0:
            self._checking = False
            return
        if getattr(self.loop, "_ready", None):  # runnable callbacks/tasks remain
            self.loop.call_soon(self._check, 0)
            return
        if n < 3:
            self.loop.call_later(0.005, self._check, n + 1)
            return
        self._checking = False
        for hook in self.exit_hooks:
            try:
                hook()
            except Exception:
                pass
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


RT = Runtime()


class AbortSignal:
    def __init__(self):
        self.aborted = False
        self._event = asyncio.Event()
        self._listeners = []

    def abort(self):
        if self.aborted:
            return
        self.aborted = True
        self._event.set()
        for cb in list(self._listeners):
            try:
                cb()
            except Exception:
                pass

    def add_listener(self, cb):
        self._listeners.append(cb)

    def remove_listener(self, cb):
        try:
            self._listeners.remove(cb)
        except ValueError:
            pass

    async def wait(self):
        await self._event.wait()


class AbortController:
    def __init__(self):
        self.signal = AbortSignal()

    def abort(self):
        self.signal.abort()


async def sleep_ms(ms: float, signal: AbortSignal | None = None) -> bool:
    """setTimeout-based sleep (keeps the process alive). Returns False if aborted."""
    if signal is not None and signal.aborted:
        return False
    RT.hold()
    try:
        if ms <= 0:
            await asyncio.sleep(0)
            return not (signal is not None and signal.aborted)
        if signal is None:
            await asyncio.sleep(ms / 1000.0)
            return True
        try:
            await asyncio.wait_for(signal.wait(), ms / 1000.0)
            return False
        except asyncio.TimeoutError:
            return not signal.aborted
    finally:
        RT.release()


class Timer:
    """setTimeout(fn, ms): keeps the process alive until it fires or is cleared."""

    def __init__(self, ms: float, fn):
        self.done = False
        self.fn = fn
        RT.hold()
        self.handle = RT.loop.call_later(max(ms, 0) / 1000.0, self._fire)

    def _fire(self):
        if self.done:
            return
        self.done = True
        try:
            self.fn()
        finally:
            RT.release()

    def cancel(self):
        if not self.done:
            self.done = True
            self.handle.cancel()
            RT.release()


def set_timeout(ms: float, fn) -> Timer:
    return Timer(ms, fn)


def spawn(coro):
    """`void promise`: run a coroutine in the background and surface crashes on stderr."""
    task = asyncio.ensure_future(coro)

    def done(t):
        if t.cancelled():
            return
        exc = t.exception()
        if exc is not None:
            import traceback

            sys.stderr.write("fake-pi internal error: " + "".join(traceback.format_exception(exc)))

    task.add_done_callback(done)
    return task
