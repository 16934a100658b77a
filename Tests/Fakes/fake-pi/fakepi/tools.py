"""Built-in tools (read, bash, edit, write, grep, find, ls) with pi's result shapes.

Tool calls made by the scripted LLM are *simulated* against a small virtual project, so
nothing on disk is touched and outputs are deterministic. Result text, `details` and error
strings follow packages/coding-agent/src/core/tools/*.ts. The RPC `bash` command (not a tool)
really runs the command, see rpc.py.
"""

from __future__ import annotations

import difflib
import os
import secrets
import tempfile

from .runtime import sleep_ms

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024


class ToolError(Exception):
    """Rejected tool promise: becomes {content:[{type:text,text:msg}], details:{}} isError:true."""


def js_len(s: str) -> int:
    """JavaScript String#length (UTF-16 code units)."""
    return len(s.encode("utf-16-le")) // 2


def format_size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def truncate_tail(content: str, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES):
    total_bytes = len(content.encode("utf-8"))
    lines = content.split("\n")
    total_lines = len(lines)
    base = {"maxLines": max_lines, "maxBytes": max_bytes}
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return {"content": content, "truncated": False, "truncatedBy": None, "totalLines": total_lines,
                "totalBytes": total_bytes, "outputLines": total_lines, "outputBytes": total_bytes,
                "lastLinePartial": False, "firstLineExceedsLimit": False, **base}
    out = []
    nbytes = 0
    by = "lines"
    partial = False
    for line in reversed(lines):
        if len(out) >= max_lines:
            break
        lb = len(line.encode("utf-8")) + (1 if out else 0)
        if nbytes + lb > max_bytes:
            by = "bytes"
            if not out:
                tail = line.encode("utf-8")[-max_bytes:].decode("utf-8", "ignore")
                out.insert(0, tail)
                nbytes = len(tail.encode("utf-8"))
                partial = True
            break
        out.insert(0, line)
        nbytes += lb
    if len(out) >= max_lines and nbytes <= max_bytes:
        by = "lines"
    text = "\n".join(out)
    return {"content": text, "truncated": True, "truncatedBy": by, "totalLines": total_lines,
            "totalBytes": total_bytes, "outputLines": len(out), "outputBytes": len(text.encode("utf-8")),
            "lastLinePartial": partial, "firstLineExceedsLimit": False, **base}


def generate_diff_string(old: str, new: str, context_lines=4):
    """pi's edit-diff.ts generateDiffString: line-numbered diff ("+NN line", "-NN line", " NN line")."""
    old_lines = old.split("\n")
    new_lines = new.split("\n")
    width = len(str(max(len(old_lines), len(new_lines))))
    parts = []  # (kind, lines) kind in {"=", "-", "+"}; jsdiff emits removed before added
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            parts.append(("=", old_lines[i1:i2]))
        else:
            if i2 > i1:
                parts.append(("-", old_lines[i1:i2]))
            if j2 > j1:
                parts.append(("+", new_lines[j1:j2]))
    out = []
    old_n = new_n = 1
    last_was_change = False
    first_changed = None
    for i, (kind, raw) in enumerate(parts):
        if kind in "+-":
            if first_changed is None:
                first_changed = new_n
            for line in raw:
                if kind == "+":
                    out.append(f"+{str(new_n).rjust(width)} {line}")
                    new_n += 1
                else:
                    out.append(f"-{str(old_n).rjust(width)} {line}")
                    old_n += 1
            last_was_change = True
        else:
            next_change = i < len(parts) - 1 and parts[i + 1][0] in "+-"
            if last_was_change or next_change:
                show = raw
                skip_start = skip_end = 0
                if not last_was_change:
                    skip_start = max(0, len(raw) - context_lines)
                    show = raw[skip_start:]
                if not next_change and len(show) > context_lines:
                    skip_end = len(show) - context_lines
                    show = show[:context_lines]
                if skip_start > 0:
                    out.append(f" {''.rjust(width)} ...")
                    old_n += skip_start
                    new_n += skip_start
                for line in show:
                    out.append(f" {str(old_n).rjust(width)} {line}")
                    old_n += 1
                    new_n += 1
                if skip_end > 0:
                    out.append(f" {''.rjust(width)} ...")
                    old_n += skip_end
                    new_n += skip_end
            else:
                old_n += len(raw)
                new_n += len(raw)
            last_was_change = False
    return "\n".join(out), first_changed


# ---------------------------------------------------------------------------
# Virtual project used by simulated tool calls
# ---------------------------------------------------------------------------


def _app_ts():
    lines = [
        'import { createServer } from "node:http";',
        'import { loadConfig } from "./config.js";',
        "",
        "export interface Handler {",
        "\t(path: string): Promise<string>;",
        "}",
        "",
        "const routes = new Map<string, Handler>();",
        "",
    ]
    for i in range(1, 23):
        lines += [f"routes.set(\"/route{i}\", async (path) => {{", f"\treturn `route {i}: ${{path}}`;", "});", ""]
    lines += [
        "export async function start(port: number): Promise<void> {",
        "\tconst config = await loadConfig();",
        "\t// TODO: handle errors",
        "\tconst server = createServer(async (req, res) => {",
        "\t\tconst handler = routes.get(req.url ?? \"/\");",
        "\t\tres.end(handler ? await handler(req.url ?? \"/\") : \"not found\");",
        "\t});",
        "\tserver.listen(port ?? config.port);",
        "}",
    ]
    return "\n".join(lines) + "\n"


VIRTUAL_FILES = {
    "src/app.ts": _app_ts(),
    "README.md": "# demo\n\nA tiny demo service.\n\n## Usage\n\n```bash\nnpm start\n```\n",
    "package.json": '{\n  "name": "demo",\n  "version": "1.0.0",\n  "scripts": { "test": "vitest run" }\n}\n',
    "src/config.ts": "export async function loadConfig() {\n\treturn { port: 8080 };\n}\n",
}

VIRTUAL_DIRS = {
    ".": [".git/", "README.md", "docs/", "node_modules/", "package.json", "src/", "tsconfig.json"],
    "src": ["app.ts", "config.ts", "routes/"],
}

# command -> (list of (delay_ms, chunk)), exit code
SIM_BASH = {
    "npm test": ([(15, "\n> demo@1.0.0 test\n> vitest run\n\n"), (20, " ✓ src/app.test.ts (12 tests) 41ms\n"),
                  (20, " ✓ src/config.test.ts (3 tests) 8ms\n"), (15, "\n Test Files  2 passed (2)\n"),
                  (10, "      Tests  15 passed (15)\n")], 0),
    "make lint": ([(10, "eslint src --max-warnings 0\n"), (25, "src/app.ts\n"),
                   (20, "  31:7  error  'config' is assigned a value but never used  no-unused-vars\n"),
                   (10, "\n✖ 1 problem (1 error, 0 warnings)\n"), (5, "make: *** [Makefile:4: lint] Error 1\n")], 2),
    "git status --short": ([(5, " M src/app.ts\n?? docs/NOTES.md\n")], 0),
    "rm -rf ./build": ([], 0),
    "npm run build": ([(20, "\n> demo@1.0.0 build\n> tsc -p .\n\n")], 0),
    "cat package.json": ([(5, VIRTUAL_FILES["package.json"])], 0),
    "wc -l src/*.ts": ([(5, "  123 src/app.ts\n    3 src/config.ts\n  126 total\n")], 0),
}


def _sim_bash_plan(command: str):
    if command in SIM_BASH:
        return SIM_BASH[command]
    if command.startswith("seq "):
        try:
            n = int(command.split()[-1])
        except ValueError:
            n = 10
        chunks = []
        step = 500
        for start in range(1, n + 1, step):
            chunks.append((1, "".join(f"{k}\n" for k in range(start, min(n, start + step - 1) + 1))))
        return (chunks, 0)
    if command.startswith("./scripts/long-task.sh"):
        # "./scripts/long-task.sh <ms>": prints a progress line every 100 ms
        try:
            total = int(command.split()[-1])
        except ValueError:
            total = 2000
        steps = max(1, total // 100)
        return ([(100, f"step {i + 1}/{steps}\n") for i in range(steps)], 0)
    if command.startswith("exit "):
        try:
            code = int(command.split()[1])
        except (IndexError, ValueError):
            code = 1
        return ([], code)
    return ([(5, f"{command}: simulated by fake-pi\n")], 0)


class Tool:
    name = ""
    description = ""

    async def execute(self, tool_call_id, args, signal, on_update):  # pragma: no cover
        raise NotImplementedError


class BashTool(Tool):
    name = "bash"
    description = "Execute a bash command in the current working directory."

    async def execute(self, tool_call_id, args, signal, on_update):
        command = args.get("command")
        if not isinstance(command, str):
            raise ToolError('Validation failed for tool "bash":\n  - command: must have required property \'command\'')
        chunks, code = _sim_bash_plan(command)
        out = ""
        temp_path = None
        for delay, chunk in chunks:
            if not await sleep_ms(delay, signal):
                break
            out += chunk
            if len(out.encode("utf-8")) > DEFAULT_MAX_BYTES and temp_path is None:
                temp_path = os.path.join(tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")
            if on_update:
                tr = truncate_tail(out)
                details = {}
                if tr["truncated"]:
                    details["truncation"] = tr
                if temp_path:
                    details["fullOutputPath"] = temp_path
                on_update({"content": [{"type": "text", "text": tr["content"] or ""}], "details": details})
        if signal is not None and signal.aborted:
            raise ToolError((out + "\n\n" if out else "") + "Command aborted")
        tr = truncate_tail(out)
        text = tr["content"] or "(no output)"
        details = None
        if tr["truncated"]:
            details = {"truncation": tr, "fullOutputPath": temp_path}
            if temp_path is None:
                del details["fullOutputPath"]
            start = tr["totalLines"] - tr["outputLines"] + 1
            end = tr["totalLines"]
            shown = temp_path if temp_path else "undefined"  # JS template of an undefined path
            if tr["truncatedBy"] == "lines":
                text += f"\n\n[Showing lines {start}-{end} of {tr['totalLines']}. Full output: {shown}]"
            else:
                text += (f"\n\n[Showing lines {start}-{end} of {tr['totalLines']} ({format_size(DEFAULT_MAX_BYTES)} "
                         f"limit). Full output: {shown}]")
        if code != 0:
            raise ToolError(f"{text}\n\nCommand exited with code {code}")
        result = {"content": [{"type": "text", "text": text}]}
        if details is not None:
            result["details"] = details
        return result


class ReadTool(Tool):
    name = "read"
    description = "Read the contents of a file."

    async def execute(self, tool_call_id, args, signal, on_update):
        path = args.get("path", "")
        key = path[2:] if path.startswith("./") else path
        if key not in VIRTUAL_FILES:
            raise ToolError(f"ENOENT: no such file or directory, access '{os.path.join(os.getcwd(), path)}'")
        all_lines = VIRTUAL_FILES[key].split("\n")
        offset, limit = args.get("offset"), args.get("limit")
        start = max(0, offset - 1) if offset else 0
        if start >= len(all_lines):
            raise ToolError(f"Offset {offset} is beyond end of file ({len(all_lines)} lines total)")
        if limit is not None:
            end = min(start + limit, len(all_lines))
            text = "\n".join(all_lines[start:end])
            if end < len(all_lines):
                text += f"\n\n[{len(all_lines) - end} more lines in file. Use offset={end + 1} to continue.]"
        else:
            text = "\n".join(all_lines[start:])
        return {"content": [{"type": "text", "text": text}]}


class EditTool(Tool):
    name = "edit"
    description = "Edit a file by replacing exact text."

    async def execute(self, tool_call_id, args, signal, on_update):
        path = args.get("path", "")
        key = path[2:] if path.startswith("./") else path
        old_text, new_text = args.get("oldText", ""), args.get("newText", "")
        if key not in VIRTUAL_FILES:
            raise ToolError(f"File not found: {path}")
        content = VIRTUAL_FILES[key]
        n = content.count(old_text) if old_text else 0
        if n == 0:
            raise ToolError(f"Could not find the exact text in {path}. The old text must match exactly "
                            "including all whitespace and newlines.")
        if n > 1:
            raise ToolError(f"Found {n} occurrences of the text in {path}. The text must be unique. "
                            "Please provide more context to make it unique.")
        updated = content.replace(old_text, new_text, 1)
        diff, first = generate_diff_string(content, updated)
        details = {"diff": diff}
        if first is not None:
            details["firstChangedLine"] = first
        return {"content": [{"type": "text", "text": f"Successfully replaced text in {path}."}], "details": details}


class WriteTool(Tool):
    name = "write"
    description = "Write content to a file."

    async def execute(self, tool_call_id, args, signal, on_update):
        path, content = args.get("path", ""), args.get("content", "")
        return {"content": [{"type": "text", "text": f"Successfully wrote {js_len(content)} bytes to {path}"}]}


class GrepTool(Tool):
    name = "grep"
    description = "Search file contents."

    async def execute(self, tool_call_id, args, signal, on_update):
        pattern = args.get("pattern", "")
        flag = args.get("ignoreCase")
        hits = []
        for fname, text in VIRTUAL_FILES.items():
            for i, line in enumerate(text.split("\n"), 1):
                hay, needle = (line.lower(), pattern.lower()) if flag else (line, pattern)
                if needle and needle in hay:
                    hits.append(f"{fname}:{i}: {line}")
        if not hits:
            return {"content": [{"type": "text", "text": "No matches found"}]}
        return {"content": [{"type": "text", "text": "\n".join(hits)}]}


class FindTool(Tool):
    name = "find"
    description = "Find files by glob pattern."

    async def execute(self, tool_call_id, args, signal, on_update):
        import fnmatch

        pattern = args.get("pattern", "*")
        found = sorted(f for f in VIRTUAL_FILES if fnmatch.fnmatch(os.path.basename(f), pattern))
        if not found:
            return {"content": [{"type": "text", "text": "No files found matching pattern"}]}
        return {"content": [{"type": "text", "text": "\n".join(found)}]}


class LsTool(Tool):
    name = "ls"
    description = "List directory contents."

    async def execute(self, tool_call_id, args, signal, on_update):
        path = (args.get("path") or ".").rstrip("/") or "."
        if path.startswith("./"):
            path = path[2:]
        entries = VIRTUAL_DIRS.get(path)
        if entries is None:
            raise ToolError(f"Path not found: {os.path.join(os.getcwd(), path)}")
        if not entries:
            return {"content": [{"type": "text", "text": "(empty directory)"}]}
        return {"content": [{"type": "text", "text": "\n".join(entries)}]}


ALL_TOOLS = {t.name: t for t in (ReadTool(), BashTool(), EditTool(), WriteTool(), GrepTool(), FindTool(), LsTool())}
DEFAULT_ACTIVE = ["read", "bash", "edit", "write"]
