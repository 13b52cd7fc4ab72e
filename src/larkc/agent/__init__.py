"""The agent prover backend (issue 24): a model endpoint proposes, larkc's engine checks (docs/agent.md)."""

from larkc.agent.config import AgentConfig, from_environment
from larkc.agent.prover import AgentOutcome, prove_with_agent, write_hints

__all__ = ["AgentConfig", "AgentOutcome", "from_environment", "prove_with_agent", "write_hints"]
