"""Entry point: `pi --mode rpc [flags]` (main.ts + cli/args.ts behaviour for RPC mode)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
import threading

from . import jsonio
from .agent import Agent
from .agent_session import AgentSession
from .extension import ExtensionRunner, FakeExtension, extension_path
from .models import (DEFAULT_MODEL_PER_PROVIDER, THINKING_LEVELS_WITH_XHIGH, Auth, ModelRegistry, resolve_cli_model,
                     supports_xhigh)
from .rpc import RpcMode
from .runtime import RT, spawn
from .scenarios import ScriptedLlm
from .session import SessionManager, Settings, default_session_dir, load_entries
from .tools import ALL_TOOLS, DEFAULT_ACTIVE

VERSION = "0.58.3"
VALID_THINKING = THINKING_LEVELS_WITH_XHIGH


def parse_args(argv):
    a = {"messages": [], "fileArgs": [], "extensions": []}
    i = 0
    n = len(argv)
    while i < n:
        arg = argv[i]
        nxt = argv[i + 1] if i + 1 < n else None
        if arg in ("--help", "-h"):
            a["help"] = True
        elif arg in ("--version", "-v"):
            a["version"] = True
        elif arg == "--mode" and nxt is not None:
            i += 1
            if nxt in ("text", "json", "rpc"):
                a["mode"] = nxt
        elif arg in ("--continue", "-c"):
            a["continue"] = True
        elif arg in ("--resume", "-r"):
            a["resume"] = True
        elif arg in ("--provider", "--model", "--api-key", "--system-prompt", "--append-system-prompt",
                     "--session", "--session-dir", "--export") and nxt is not None:
            i += 1
            a[arg[2:]] = nxt
        elif arg == "--no-session":
            a["noSession"] = True
        elif arg == "--models" and nxt is not None:
            i += 1
            a["models"] = [s.strip() for s in nxt.split(",")]
        elif arg == "--no-tools":
            a["noTools"] = True
        elif arg == "--tools" and nxt is not None:
            i += 1
            valid = []
            for name in (s.strip() for s in nxt.split(",")):
                if name in ALL_TOOLS:
                    valid.append(name)
                else:
                    sys.stderr.write(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(ALL_TOOLS)}\n')
            a["tools"] = valid
        elif arg == "--thinking" and nxt is not None:
            i += 1
            if nxt in VALID_THINKING:
                a["thinking"] = nxt
            else:
                sys.stderr.write(f'Warning: Invalid thinking level "{nxt}". Valid values: {", ".join(VALID_THINKING)}\n')
        elif arg in ("--print", "-p"):
            a["print"] = True
        elif arg in ("--extension", "-e") and nxt is not None:
            i += 1
            a["extensions"].append(nxt)
        elif arg in ("--no-extensions", "-ne"):
            a["noExtensions"] = True
        elif arg in ("--skill", "--prompt-template", "--theme") and nxt is not None:
            i += 1
        elif arg in ("--no-skills", "-ns", "--no-prompt-templates", "-np", "--no-themes"):
            pass
        elif arg == "--list-models":
            if nxt is not None and not nxt.startswith("-") and not nxt.startswith("@"):
                i += 1
            a["listModels"] = True
        elif arg == "--verbose":
            a["verbose"] = True
        elif arg == "--offline":
            a["offline"] = True
        elif arg.startswith("@"):
            a["fileArgs"].append(arg[1:])
        elif arg.startswith("-"):
            pass  # unknown flags are ignored
        else:
            a["messages"].append(arg)
        i += 1
    return a


def agent_dir(env):
    d = env.get("PI_CODING_AGENT_DIR")
    if d:
        if d == "~" or d.startswith("~/"):
            d = os.path.expanduser(d)
        return d
    return os.path.join(tempfile.gettempdir(), f"fake-pi-agent-{os.getuid()}")


def fail(msg, code=1):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()
    os._exit(code)


def _read_stdin_line():
    data = b""
    while True:
        ch = os.read(0, 1)
        if not ch or ch == b"\n":
            break
        data += ch
    return data.decode("utf-8", "replace").strip()


def create_session_manager(a, cwd, adir, settings_dir):
    if a.get("noSession"):
        return SessionManager.in_memory(cwd)
    sdir = a.get("session-dir")
    if a.get("session"):
        arg = a["session"]
        if "/" in arg or "\\" in arg or arg.endswith(".jsonl"):
            return SessionManager.open(arg, sdir)
        local_dir = sdir or default_session_dir(adir, cwd)
        local = _find_by_prefix(local_dir, arg)
        if local:
            return SessionManager.open(local, sdir)
        glob = _find_global(adir, arg)
        if glob:
            path, other_cwd = glob
            w = jsonio.StdoutWriter()
            w.write_raw(f"Session found in different project: {other_cwd}\n".encode())
            w.write_raw(b"Fork this session into current directory? [y/N] ")
            answer = _read_stdin_line().lower()
            if answer not in ("y", "yes"):
                w.write_raw(b"Aborted.\n")
                os._exit(0)
            src = load_entries(path)
            smgr = SessionManager.create(cwd, sdir or default_session_dir(adir, cwd))
            smgr.file_entries[0]["parentSession"] = path
            smgr.file_entries += [e for e in src if e.get("type") != "session"]
            smgr._build_index()
            smgr._rewrite_file()
            smgr.flushed = True
            return smgr
        fail(f"No session found matching '{arg}'")
    if a.get("continue"):
        return SessionManager.continue_recent(cwd, sdir or default_session_dir(adir, cwd))
    return SessionManager.create(cwd, sdir or default_session_dir(adir, cwd))


def _session_files(d):
    try:
        return [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".jsonl")]
    except OSError:
        return []


def _header(path):
    es = load_entries(path)
    return es[0] if es and es[0].get("type") == "session" else None


def _find_by_prefix(d, prefix):
    for p in sorted(_session_files(d), key=lambda p: -os.stat(p).st_mtime):
        h = _header(p)
        if h and str(h.get("id", "")).startswith(prefix):
            return p
    return None


def _find_global(adir, prefix):
    root = os.path.join(adir, "sessions")
    try:
        dirs = [os.path.join(root, x) for x in os.listdir(root)]
    except OSError:
        return None
    for d in dirs:
        for p in _session_files(d):
            h = _header(p)
            if h and str(h.get("id", "")).startswith(prefix):
                return p, h.get("cwd")
    return None


def main(argv):
    env = os.environ
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    a = parse_args(argv)
    if a.get("offline"):
        os.environ["PI_OFFLINE"] = "1"
    writer = jsonio.StdoutWriter()
    names_dir = env.get("FAKE_PI_ENV_NAMES")
    if names_dir:
        # Test instrumentation, not pi: the names (never the values) of the variables this pi was
        # given, so a test can check which secrets an agent (its bash tool) could read.
        path = os.path.join(names_dir, f"pi-{os.getpid()}")
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(sorted(env.keys())) + "\n")
        os.rename(path + ".tmp", path)
    if env.get("FAKE_PI_MIGRATION_LINE") == "1":
        writer.write_raw("Migrated global commands/ → prompts/\n".encode())
    if a.get("version"):
        writer.write_raw(f"{VERSION}\n".encode())
        return 0
    if a.get("help"):
        writer.write_raw(b"pi (fake-pi) - only --mode rpc is emulated. See Tests/Fakes/fake-pi/README.md\n")
        return 0
    if a.get("mode") != "rpc":
        fail("fake-pi: only `--mode rpc` is emulated", 2)
    if a["fileArgs"]:
        fail("Error: @file arguments are not supported in RPC mode")

    cwd = os.getcwd()
    adir = agent_dir(env)
    os.makedirs(adir, exist_ok=True)
    settings = Settings(adir, cwd)
    auth = Auth(env)
    registry = ModelRegistry(auth, adir)

    # extensions
    ext = None
    if env.get("FAKE_PI_EXTENSION_LOAD_ERROR") == "1" and a["extensions"]:
        # pi-extension-api.md §1.2: a load error goes to stderr as red text at startup, and pi
        # starts anyway without that extension (pi-rpc.md §1b: stderr carries extension load
        # failures). Every -e file fails here, so no extension is loaded.
        for path in a["extensions"]:
            sys.stderr.write('\x1b[31mFailed to load extension "%s": does not export a valid factory function\x1b[0m\n'
                             % os.path.abspath(path))
        sys.stderr.flush()
    elif not a.get("noExtensions") or a["extensions"]:
        ext_path = extension_path(a["extensions"], adir)
        ext = FakeExtension(ext_path, env, lambda: rpc.ui)

    scoped = []
    for pat in a.get("models") or []:
        m, lvl, err = resolve_cli_model(None, pat, registry)
        if m and auth.has_auth(m["provider"]):
            scoped.append({"model": m, "thinkingLevel": lvl} if lvl else {"model": m})

    sm = create_session_manager(a, cwd, adir, None)

    # model (findInitialModel / session restore)
    model = None
    thinking = None
    cli_thinking_from_model = False
    if a.get("model"):
        m, lvl, err = resolve_cli_model(a.get("provider"), a["model"], registry)
        if err:
            fail(err)
        model = m
        if lvl and not a.get("thinking"):
            thinking = lvl
            cli_thinking_from_model = True
    if a.get("api-key"):
        if not model:
            fail("--api-key requires a model to be specified via --model, --provider/--model, or --models")
        auth.set_runtime_key(model["provider"])
    if model is None and scoped and not a.get("continue"):
        model = scoped[0]["model"]
        thinking = scoped[0].get("thinkingLevel")
    if a.get("thinking"):
        thinking = a["thinking"]
    existing = sm.build_session_context()
    has_existing = len(existing["messages"]) > 0
    has_thinking_entry = any(e.get("type") == "thinking_level_change" for e in sm.get_branch())
    if model is None and has_existing and existing["model"]:
        rm = registry.find(existing["model"]["provider"], existing["model"]["modelId"])
        if rm and registry.get_api_key(rm):
            model = rm
    if model is None:
        dp, dm = settings.default_provider(), settings.default_model()
        if dp and dm and registry.find(dp, dm):
            model = registry.find(dp, dm)
            if thinking is None and settings.default_thinking_level():
                thinking = settings.default_thinking_level()
        else:
            avail = registry.get_available()
            for prov, mid in DEFAULT_MODEL_PER_PROVIDER.items():
                hit = next((x for x in avail if x["provider"] == prov and x["id"] == mid), None)
                if hit:
                    model = hit
                    break
            if model is None and avail:
                model = avail[0]
    if thinking is None and has_existing:
        thinking = existing["thinkingLevel"] if has_thinking_entry else (settings.default_thinking_level() or "medium")
    if thinking is None:
        thinking = settings.default_thinking_level() or "medium"
    if model is None:
        fail("No models available.\n\nSet an API key environment variable:\n  ANTHROPIC_API_KEY, OPENAI_API_KEY, "
             f"GEMINI_API_KEY, etc.\n\nOr create {os.path.join(adir, 'models.json')}")
    if not model.get("reasoning"):
        thinking = "off"
    elif thinking == "xhigh" and not supports_xhigh(model):
        thinking = "high"

    # tools
    if a.get("noTools"):
        names = a.get("tools") or []
    elif "tools" in a:
        names = a["tools"]
    else:
        names = DEFAULT_ACTIVE
    tools = [ALL_TOOLS[n] for n in names]
    if ext is not None:
        tools += ext.tools

    if has_existing:
        if not has_thinking_entry:
            sm.append_thinking_level_change(thinking)
    else:
        sm.append_model_change(model["provider"], model["id"])
        sm.append_thinking_level_change(thinking)

    rpc = None

    async def run():
        nonlocal rpc
        loop = asyncio.get_running_loop()
        RT.loop = loop
        agent = Agent(model, thinking, tools, settings.steering_mode(), settings.follow_up_mode())
        seed = env.get("FAKE_PI_SEED")
        if seed and seed.isdigit():
            import random

            agent.rng = random.Random(int(seed) + 1)
        if has_existing:
            agent.replace_messages(existing["messages"])
        session_box = {}
        llm = ScriptedLlm(lambda: session_box["s"], env)
        agent.llm = llm
        runner = None
        # RPC output must exist before extensions bind (session_start may print UI requests)
        holder = {}

        def on_ext_error(err):
            holder["rpc"].output({"type": "extension_error", "extensionPath": err["extensionPath"],
                                  "event": err["event"], "error": err["error"]})

        if ext is not None:
            runner = ExtensionRunner([ext], on_ext_error)
        session = AgentSession(agent, sm, settings, registry, runner, llm, scoped)
        session_box["s"] = session
        session.writer = writer
        rpc = RpcMode(session, writer)
        holder["rpc"] = rpc
        agent.write_garbage = lambda line: writer.write_raw((line + "\n").encode())
        # bindExtensions: session_start handlers run before the reader attaches
        if runner is not None and runner.has_handlers("session_start"):
            await runner.emit({"type": "session_start"})
        session.subscribe(rpc.output)

        die = env.get("FAKE_PI_DIE_AFTER_MS")
        if die:
            def die_now():
                sys.stderr.write(f"fake-pi: simulated crash after {die} ms (FAKE_PI_DIE_AFTER_MS)\n")
                sys.stderr.flush()
                os._exit(1)

            loop.call_later(float(die) / 1000.0, die_now)

        def on_line(line):
            loop.call_soon_threadsafe(lambda: spawn(rpc.handle_input_line(line)))

        def on_eof():
            def mark():
                RT.eof = True
                RT.schedule_exit_check()

            loop.call_soon_threadsafe(mark)

        threading.Thread(target=jsonio.stdin_reader_thread, args=(on_line, on_eof, 0, env.get("FAKE_PI_LOG")),
                         daemon=True).start()
        await asyncio.Event().wait()

    asyncio.run(run())
    return 0
