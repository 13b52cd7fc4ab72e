"""How larkc reaches a model endpoint, and how much it may spend there (``docs/agent.md``).

Any OpenAI-compatible chat-completions endpoint with function tools (hosted APIs, vLLM, llama.cpp,
Ollama). The key is read from the environment variable :attr:`AgentConfig.key_env` names when the client is
made, and is never stored in the configuration, a transcript, a cache or a message.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from larkc.errors import LarkcError, Stage

__all__ = ["AgentConfig", "from_environment"]

#: The environment variables the agent reads (the CLI's options override them).
BASE_URL_ENV = "LARKC_AGENT_BASE_URL"
MODEL_ENV = "LARKC_AGENT_MODEL"
KEY_ENV_ENV = "LARKC_AGENT_KEY_ENV"  # the *name* of the variable holding the key
DEFAULT_KEY_ENV = "LARKC_AGENT_API_KEY"


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """The endpoint and the budget of one agent run."""

    base_url: str
    model: str
    key_env: str = DEFAULT_KEY_ENV
    max_turns: int = 8  # model calls
    max_tokens: int = 200_000  # prompt + completion tokens over the run (the endpoint's usage counts)
    max_seconds: float = 300.0  # wall time of the run
    max_cost: float = math.inf  # in the currency of the prices below
    price_in: float = 0.0  # per million prompt tokens
    price_out: float = 0.0  # per million completion tokens
    retries: int = 4  # on 429, 5xx and connection errors
    backoff: float = 1.0  # seconds before the first retry, doubled each time
    request_seconds: float = 120.0  # one request

    def key(self) -> str:
        """The key, from the environment (an endpoint without keys gets a placeholder)."""
        return os.environ.get(self.key_env, "") or "none"

    def cost(self, prompt: int, completion: int) -> float:
        return (prompt * self.price_in + completion * self.price_out) / 1e6


def from_environment(
    env: Mapping[str, str] | None = None, *, base_url: str | None = None, model: str | None = None
) -> AgentConfig:
    """The configuration from ``env`` (the process environment by default), options first."""
    env = os.environ if env is None else env
    url = base_url or env.get(BASE_URL_ENV, "")
    name = model or env.get(MODEL_ENV, "")
    if not url:
        raise LarkcError(f"--agent: no endpoint (set {BASE_URL_ENV} or --agent-base-url)", stage=Stage.CLI)
    if not name:
        raise LarkcError(f"--agent: no model (set {MODEL_ENV} or --agent-model)", stage=Stage.CLI)

    def number(var: str, default: float) -> float:
        text = env.get(var, "")
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            raise LarkcError(f"{var}={text!r}: expected a number", stage=Stage.CLI) from None
        if not value >= 0:
            raise LarkcError(f"{var}={text!r}: expected a number >= 0", stage=Stage.CLI)
        return value

    base = AgentConfig(url, name)
    return AgentConfig(
        url,
        name,
        key_env=env.get(KEY_ENV_ENV, "") or DEFAULT_KEY_ENV,
        max_turns=int(number("LARKC_AGENT_MAX_TURNS", base.max_turns)),
        max_tokens=int(number("LARKC_AGENT_MAX_TOKENS", base.max_tokens)),
        max_seconds=number("LARKC_AGENT_MAX_SECONDS", base.max_seconds),
        max_cost=number("LARKC_AGENT_MAX_COST", base.max_cost),
        price_in=number("LARKC_AGENT_PRICE_IN", base.price_in),
        price_out=number("LARKC_AGENT_PRICE_OUT", base.price_out),
    )
