"""Settings (settings.json) and the session file manager (session-manager.ts behaviour)."""

from __future__ import annotations

import copy
import json
import os
import time
import uuid
from datetime import datetime, timezone

from .jsonio import dumps

CURRENT_SESSION_VERSION = 3


def now_ms() -> int:
    return int(time.time() * 1000)


def iso_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_to_ms(s: str) -> int:
    try:
        return int(datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1000)
    except Exception:
        return 0


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------


def _deep_merge(base, over):
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


class Settings:
    """Global <agentDir>/settings.json merged with project <cwd>/.pi/settings.json.
    Setters persist into the global file, like pi."""

    def __init__(self, agent_dir: str, cwd: str):
        self.global_path = os.path.join(agent_dir, "settings.json")
        self.project_path = os.path.join(cwd, ".pi", "settings.json")
        self.global_settings = self._load(self.global_path)
        self.project_settings = self._load(self.project_path)

    @staticmethod
    def _load(path):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            return data if isinstance(data, dict) else {}
        except FileNotFoundError:
            return {}
        except Exception as e:
            import sys

            sys.stderr.write(f"Warning: could not parse settings {path}: {e}\n")
            return {}

    @property
    def s(self):
        return _deep_merge(self.global_settings, self.project_settings)

    def _save(self):
        try:
            os.makedirs(os.path.dirname(self.global_path), exist_ok=True)
            # Re-read to merge concurrent writers' fields (pi uses a lock + merge).
            current = self._load(self.global_path)
            current.update(self.global_settings)
            self.global_settings = current
            tmp = self.global_path + f".tmp{os.getpid()}"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(current, f, indent=2, ensure_ascii=False)
            os.replace(tmp, self.global_path)
        except OSError:
            pass

    def _set(self, key, value):
        self.global_settings[key] = value
        self._save()

    def _set_nested(self, key, sub, value):
        d = dict(self.global_settings.get(key) or {})
        d[sub] = value
        self.global_settings[key] = d
        self._save()

    # getters
    def default_provider(self):
        return self.s.get("defaultProvider")

    def default_model(self):
        return self.s.get("defaultModel")

    def default_thinking_level(self):
        return self.s.get("defaultThinkingLevel")

    def steering_mode(self):
        return self.s.get("steeringMode") or "one-at-a-time"

    def follow_up_mode(self):
        return self.s.get("followUpMode") or "one-at-a-time"

    def compaction(self):
        c = self.s.get("compaction") or {}
        return {
            "enabled": c.get("enabled", True),
            "reserveTokens": c.get("reserveTokens", 16384),
            "keepRecentTokens": c.get("keepRecentTokens", 20000),
        }

    def retry(self):
        r = self.s.get("retry") or {}
        base = r.get("baseDelayMs", 2000)
        env = os.environ.get("FAKE_PI_RETRY_BASE_MS")
        if env:
            base = int(env)
        return {
            "enabled": r.get("enabled", True),
            "maxRetries": r.get("maxRetries", 3),
            "baseDelayMs": base,
        }

    # setters (persisted)
    def set_default_model_and_provider(self, provider, model_id):
        self.global_settings["defaultProvider"] = provider
        self.global_settings["defaultModel"] = model_id
        self._save()

    def set_default_thinking_level(self, level):
        self._set("defaultThinkingLevel", level)

    def set_steering_mode(self, mode):
        self._set("steeringMode", mode)

    def set_follow_up_mode(self, mode):
        self._set("followUpMode", mode)

    def set_compaction_enabled(self, enabled):
        self._set_nested("compaction", "enabled", enabled)

    def set_retry_enabled(self, enabled):
        self._set_nested("retry", "enabled", enabled)


# ---------------------------------------------------------------------------
# Session manager
# ---------------------------------------------------------------------------


def default_session_dir(agent_dir: str, cwd: str) -> str:
    safe = "--" + cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"
    d = os.path.join(agent_dir, "sessions", safe)
    os.makedirs(d, exist_ok=True)
    return d


def load_entries(path):
    entries = []
    try:
        with open(path, encoding="utf-8") as f:
            content = f.read()
    except OSError:
        return entries
    for line in content.strip().split("\n"):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries


def find_most_recent_session(session_dir):
    try:
        files = [os.path.join(session_dir, f) for f in os.listdir(session_dir) if f.endswith(".jsonl")]
    except OSError:
        return None
    valid = []
    for p in files:
        es = load_entries(p)
        if es and es[0].get("type") == "session":
            valid.append((os.stat(p).st_mtime, p))
    valid.sort(reverse=True)
    return valid[0][1] if valid else None


class SessionManager:
    def __init__(self, cwd: str, session_dir: str, session_file: str | None, persist: bool):
        self.cwd = cwd
        self.session_dir = session_dir
        self.persist = persist
        self.session_id = ""
        self.session_file: str | None = None
        self.flushed = False
        self.file_entries: list = []
        self.by_id: dict = {}
        self.leaf_id = None
        if persist and session_dir and not os.path.exists(session_dir):
            os.makedirs(session_dir, exist_ok=True)
        if session_file:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # factories ---------------------------------------------------------------
    @classmethod
    def create(cls, cwd, session_dir):
        return cls(cwd, session_dir, None, True)

    @classmethod
    def open(cls, path, session_dir=None):
        entries = load_entries(path)
        header = next((e for e in entries if e.get("type") == "session"), None)
        cwd = (header or {}).get("cwd") or os.getcwd()
        d = session_dir or os.path.dirname(os.path.abspath(path))
        return cls(cwd, d, path, True)

    @classmethod
    def continue_recent(cls, cwd, session_dir):
        recent = find_most_recent_session(session_dir)
        return cls(cwd, session_dir, recent, True)

    @classmethod
    def in_memory(cls, cwd):
        return cls(cwd, "", None, False)

    # core ----------------------------------------------------------------------
    def set_session_file(self, path):
        self.session_file = os.path.abspath(path)
        if os.path.exists(self.session_file):
            self.file_entries = load_entries(self.session_file)
            if not self.file_entries:
                explicit = self.session_file
                self.new_session()
                self.session_file = explicit
                self._rewrite_file()
                self.flushed = True
                return
            header = next((e for e in self.file_entries if e.get("type") == "session"), None)
            self.session_id = (header or {}).get("id") or str(uuid.uuid4())
            self._build_index()
            self.flushed = True
        else:
            explicit = self.session_file
            self.new_session()
            self.session_file = explicit

    def new_session(self, parent_session=None, session_id=None):
        self.session_id = session_id or str(uuid.uuid4())
        ts = iso_now()
        header = {"type": "session", "version": CURRENT_SESSION_VERSION, "id": self.session_id,
                  "timestamp": ts, "cwd": self.cwd}
        if parent_session is not None:
            header["parentSession"] = parent_session
        self.file_entries = [header]
        self.by_id = {}
        self.leaf_id = None
        self.flushed = False
        if self.persist:
            file_ts = ts.replace(":", "-").replace(".", "-")
            self.session_file = os.path.join(self.session_dir, f"{file_ts}_{self.session_id}.jsonl")
        return self.session_file

    def _build_index(self):
        self.by_id = {}
        self.leaf_id = None
        for e in self.file_entries:
            if e.get("type") == "session":
                continue
            if "id" in e:
                self.by_id[e["id"]] = e
                self.leaf_id = e["id"]

    def _rewrite_file(self):
        if not self.persist or not self.session_file:
            return
        with open(self.session_file, "w", encoding="utf-8") as f:
            f.write("".join(dumps(e) + "\n" for e in self.file_entries))

    def _persist(self, entry):
        if not self.persist or not self.session_file:
            return
        has_assistant = any(
            e.get("type") == "message" and e.get("message", {}).get("role") == "assistant"
            for e in self.file_entries
        )
        if not has_assistant:
            self.flushed = False
            return
        os.makedirs(os.path.dirname(self.session_file), exist_ok=True)
        with open(self.session_file, "a", encoding="utf-8") as f:
            if not self.flushed:
                f.write("".join(dumps(e) + "\n" for e in self.file_entries))
                self.flushed = True
            else:
                f.write(dumps(entry) + "\n")

    def _gen_id(self):
        for _ in range(100):
            i = str(uuid.uuid4())[:8]
            if i not in self.by_id:
                return i
        return str(uuid.uuid4())

    def _append(self, entry):
        self.file_entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf_id = entry["id"]
        self._persist(entry)
        return entry["id"]

    def _base(self, type_):
        return {"type": type_, "id": self._gen_id(), "parentId": self.leaf_id, "timestamp": iso_now()}

    def append_message(self, message):
        e = self._base("message")
        e["message"] = message
        return self._append(e)

    def append_thinking_level_change(self, level):
        e = self._base("thinking_level_change")
        e["thinkingLevel"] = level
        return self._append(e)

    def append_model_change(self, provider, model_id):
        e = self._base("model_change")
        e["provider"] = provider
        e["modelId"] = model_id
        return self._append(e)

    def append_compaction(self, summary, first_kept_entry_id, tokens_before, details=None, from_hook=None):
        e = self._base("compaction")
        e["summary"] = summary
        e["firstKeptEntryId"] = first_kept_entry_id
        e["tokensBefore"] = tokens_before
        if details is not None:
            e["details"] = details
        if from_hook is not None:
            e["fromHook"] = from_hook
        return self._append(e)

    def append_session_info(self, name):
        e = self._base("session_info")
        e["name"] = name.strip()
        return self._append(e)

    def append_custom_message_entry(self, custom_type, content, display, details=None):
        e = {"type": "custom_message", "customType": custom_type, "content": content, "display": display}
        if details is not None:
            e["details"] = details
        e.update({"id": self._gen_id(), "parentId": self.leaf_id, "timestamp": iso_now()})
        return self._append(e)

    # reading -------------------------------------------------------------------
    def get_entries(self):
        return [e for e in self.file_entries if e.get("type") != "session"]

    def get_header(self):
        return next((e for e in self.file_entries if e.get("type") == "session"), None)

    def get_entry(self, entry_id):
        return self.by_id.get(entry_id)

    def get_branch(self, from_id=None):
        path = []
        cur = self.by_id.get(from_id if from_id is not None else self.leaf_id)
        while cur is not None:
            path.insert(0, cur)
            pid = cur.get("parentId")
            cur = self.by_id.get(pid) if pid else None
        return path

    def get_session_name(self):
        for e in reversed(self.get_entries()):
            if e.get("type") == "session_info" and e.get("name"):
                return e["name"]
        return None

    def build_session_context(self):
        if self.leaf_id is None:
            return {"messages": [], "thinkingLevel": "off", "model": None}
        path = self.get_branch()
        thinking = "off"
        model = None
        compaction = None
        for e in path:
            t = e.get("type")
            if t == "thinking_level_change":
                thinking = e["thinkingLevel"]
            elif t == "model_change":
                model = {"provider": e["provider"], "modelId": e["modelId"]}
            elif t == "message" and e["message"].get("role") == "assistant":
                model = {"provider": e["message"].get("provider"), "modelId": e["message"].get("model")}
            elif t == "compaction":
                compaction = e
        messages = []

        def add(e):
            t = e.get("type")
            if t == "message":
                messages.append(e["message"])
            elif t == "custom_message":
                m = {"role": "custom", "customType": e["customType"], "content": e["content"],
                     "display": e["display"]}
                if "details" in e:
                    m["details"] = e["details"]
                m["timestamp"] = iso_to_ms(e["timestamp"])
                messages.append(m)
            elif t == "branch_summary" and e.get("summary"):
                messages.append({"role": "branchSummary", "summary": e["summary"], "fromId": e["fromId"],
                                 "timestamp": iso_to_ms(e["timestamp"])})

        if compaction:
            messages.append({"role": "compactionSummary", "summary": compaction["summary"],
                             "tokensBefore": compaction["tokensBefore"],
                             "timestamp": iso_to_ms(compaction["timestamp"])})
            idx = next(i for i, e in enumerate(path) if e is compaction)
            found = False
            for e in path[:idx]:
                if e["id"] == compaction["firstKeptEntryId"]:
                    found = True
                if found:
                    add(e)
            for e in path[idx + 1 :]:
                add(e)
        else:
            for e in path:
                add(e)
        return {"messages": messages, "thinkingLevel": thinking, "model": model}

    def create_branched_session(self, leaf_id):
        """Fork: new session file holding the path up to leaf_id."""
        path = self.get_branch(leaf_id)
        prev_file = self.session_file
        new_id = str(uuid.uuid4())
        ts = iso_now()
        header = {"type": "session", "version": CURRENT_SESSION_VERSION, "id": new_id, "timestamp": ts,
                  "cwd": self.cwd}
        if prev_file:
            header["parentSession"] = prev_file
        self.file_entries = [header] + [copy.deepcopy(e) for e in path]
        self.session_id = new_id
        self._build_index()
        if self.persist:
            file_ts = ts.replace(":", "-").replace(".", "-")
            self.session_file = os.path.join(self.session_dir, f"{file_ts}_{new_id}.jsonl")
            has_assistant = any(e.get("type") == "message" and e["message"].get("role") == "assistant"
                                for e in path)
            if has_assistant:
                self._rewrite_file()
                self.flushed = True
            else:
                self.flushed = False
