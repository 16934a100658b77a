"""Model registry and credentials, shaped like pi-ai's `Model` objects (pi 0.58.3 data)."""

from __future__ import annotations

import os


def _m(id, name, api, provider, base_url, reasoning, cost, ctx, max_tokens):
    return {
        "id": id,
        "name": name,
        "api": api,
        "provider": provider,
        "baseUrl": base_url,
        "reasoning": reasoning,
        "input": ["text", "image"],
        "cost": {"input": cost[0], "output": cost[1], "cacheRead": cost[2], "cacheWrite": cost[3]},
        "contextWindow": ctx,
        "maxTokens": max_tokens,
    }


# Order follows models.generated.ts (provider blocks, then ids).
ALL_MODELS = [
    _m("claude-haiku-4-5", "Claude Haiku 4.5 (latest)", "anthropic-messages", "anthropic",
       "https://api.anthropic.com", True, (1, 5, 0.1, 1.25), 200000, 64000),
    _m("claude-opus-4-6", "Claude Opus 4.6", "anthropic-messages", "anthropic",
       "https://api.anthropic.com", True, (5, 25, 0.5, 6.25), 1000000, 128000),
    _m("claude-sonnet-4-5", "Claude Sonnet 4.5 (latest)", "anthropic-messages", "anthropic",
       "https://api.anthropic.com", True, (3, 15, 0.3, 3.75), 200000, 64000),
    _m("gpt-5.1-codex", "GPT-5.1 Codex", "openai-responses", "openai",
       "https://api.openai.com/v1", True, (1.25, 10, 0.125, 0), 400000, 128000),
    _m("gpt-5.4", "GPT-5.4", "openai-responses", "openai",
       "https://api.openai.com/v1", True, (2.5, 15, 0.25, 0), 272000, 128000),
]

# model-resolver.ts defaultModelPerProvider (subset)
DEFAULT_MODEL_PER_PROVIDER = {"anthropic": "claude-opus-4-6", "openai": "gpt-5.4"}

ENV_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"]
THINKING_LEVELS_WITH_XHIGH = ["off", "minimal", "low", "medium", "high", "xhigh"]


def supports_xhigh(model) -> bool:
    mid = model["id"]
    return any(x in mid for x in ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"))


class Auth:
    """Which providers have credentials.

    FAKE_PI_AUTH: comma list of providers with working credentials (default "anthropic").
    A "provider:broken" item has stored credentials that fail at use time (hasAuth true,
    getApiKey undefined), like an expired OAuth token. Provider API-key env vars
    (ANTHROPIC_API_KEY, OPENAI_API_KEY) and --api-key add working credentials.
    """

    def __init__(self, env):
        self.working: set[str] = set()
        self.broken: set[str] = set()
        spec = env.get("FAKE_PI_AUTH", "anthropic")
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            if item.endswith(":broken"):
                self.broken.add(item[: -len(":broken")])
            else:
                self.working.add(item)
        for provider, var in ENV_KEYS.items():
            if env.get(var):
                self.working.add(provider)
                self.broken.discard(provider)
        if env.get("FAKE_PI_NO_MODELS") == "1":
            self.working.clear()
            self.broken.clear()

    def set_runtime_key(self, provider: str):
        self.working.add(provider)
        self.broken.discard(provider)

    def has_auth(self, provider: str) -> bool:
        return provider in self.working or provider in self.broken

    def get_api_key(self, provider: str):
        return "fake-key" if provider in self.working else None


class ModelRegistry:
    def __init__(self, auth: Auth, agent_dir=None):
        self.auth = auth
        self.models = [dict(m) for m in ALL_MODELS]
        if agent_dir:
            self.models += load_custom_models(agent_dir, auth)

    def get_all(self):
        return self.models

    def get_available(self):
        return [m for m in self.models if self.auth.has_auth(m["provider"])]

    def find(self, provider, model_id):
        for m in self.models:
            if m["provider"] == provider and m["id"] == model_id:
                return m
        return None

    def get_api_key(self, model):
        return self.auth.get_api_key(model["provider"])


def resolve_cli_model(cli_provider, cli_model, registry: ModelRegistry):
    """Simplified resolveCliModel: returns (model, thinking_level, error)."""
    models = registry.get_all()
    if cli_provider and cli_provider not in {m["provider"] for m in models}:
        return None, None, f'Unknown provider "{cli_provider}". Use --list-models to see available providers/models.'
    pattern = cli_model
    provider = cli_provider
    if not provider and "/" in pattern:
        p, rest = pattern.split("/", 1)
        if p in {m["provider"] for m in models}:
            provider, pattern = p, rest
    thinking = None
    if ":" in pattern:
        base, lvl = pattern.rsplit(":", 1)
        if lvl in THINKING_LEVELS_WITH_XHIGH:
            pattern, thinking = base, lvl
    candidates = [m for m in models if not provider or m["provider"] == provider]
    low = pattern.lower()
    exact = [m for m in candidates if m["id"].lower() == low]
    if exact:
        return exact[0], thinking, None
    fuzzy = [m for m in candidates if low in m["id"].lower() or low in m["name"].lower()]
    if fuzzy:
        return fuzzy[0], thinking, None
    display = f"{provider}/{pattern}" if provider else cli_model
    return None, None, f'Model "{display}" not found. Use --list-models to see available models.'


def get_env_auth(env=None):
    return Auth(env if env is not None else os.environ)


def load_custom_models(agent_dir, auth: Auth):
    """Custom providers from `<agentDir>/models.json`, as model-registry.ts reads them:
    `{"providers": {NAME: {baseUrl, api, apiKey?, models: [{id, name?, reasoning?, input?,
    cost?, contextWindow?, maxTokens?}]}}}`. A model's `input` defaults to `["text"]` (no
    images), `reasoning` to false; a provider with an `apiKey` has credentials. A file that is
    missing is no error; one that cannot be parsed is reported on stderr and ignored, as pi does.
    """
    import json
    import sys

    path = os.path.join(agent_dir, "models.json")
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        sys.stderr.write(f"Failed to load models.json: {e}\n")
        return []
    out = []
    for provider, pc in (config.get("providers") or {}).items():
        if not isinstance(pc, dict):
            continue
        if pc.get("apiKey"):
            auth.set_runtime_key(provider)
        for md in pc.get("models") or []:
            if not isinstance(md, dict) or not md.get("id"):
                continue
            cost = md.get("cost") or {}
            out.append({
                "id": md["id"],
                "name": md.get("name", md["id"]),
                "api": md.get("api", pc.get("api", "openai-completions")),
                "provider": provider,
                "baseUrl": pc.get("baseUrl", ""),
                "reasoning": bool(md.get("reasoning", False)),
                "input": list(md.get("input") or ["text"]),
                "cost": {k: cost.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite")},
                "contextWindow": md.get("contextWindow", 128000),
                "maxTokens": md.get("maxTokens", 16384),
            })
    return out
