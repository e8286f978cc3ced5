"""work-agent's JSON schemas, as closed pydantic models: what its validator accepts.

work-agent validates every ``agent.json`` and ``tool.json`` with Ajv against
``schemas/agent.schema.json`` and ``schemas/tool.schema.json`` (both
``additionalProperties: false``; ``src-server/domain/validator.ts``) and skips a file
that fails ("Failed to load agent ..."). These models are the union of the schema
versions in its history (the last ``.work-agent/`` commit, ``main``, the
``feat/codex-convergence`` and ``feat/entity-hierarchy-v2`` branches), plus:

- ``delegation`` (``AgentDelegationPolicy`` in ``packages/contracts/src/agent.ts`` and
  ``examples/self-configuring-agent/agent.json`` on ``feat/codex-convergence``; that
  branch's schema does not list it yet, its runtime reads it);
- the spec spelling ``tools.use`` / ``tools.allowed`` (SPEC section 3: both spellings
  are accepted) and ``systemPrompt`` / ``instructions`` (earlier toolkit spellings of
  ``prompt``).

Types are strict as JSON Schema's are (``"true"`` is not a boolean, ``1`` not a string).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

__all__ = ["AgentSpec", "InlineServer", "ToolDef"]

Text = Annotated[StrictStr, Field(min_length=1)]
Number = StrictInt | StrictFloat


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _Guardrails(_Closed):
    maxTokens: Annotated[StrictInt, Field(ge=1, le=100_000)] | None = None  # noqa: N815
    temperature: Annotated[Number, Field(ge=0, le=2)] | None = None
    topP: Annotated[Number, Field(ge=0, le=1)] | None = None  # noqa: N815
    stopSequences: list[StrictStr] | None = None  # noqa: N815


class _Streaming(_Closed):
    useNewPipeline: StrictBool | None = None  # noqa: N815
    enableThinking: StrictBool | None = None  # noqa: N815
    debugStreaming: StrictBool | None = None  # noqa: N815


class _QuickPrompt(_Closed):
    id: Annotated[StrictStr, Field(min_length=1, max_length=80)]
    label: Annotated[StrictStr, Field(min_length=1, max_length=60)]
    prompt: Text


class _UI(_Closed):
    component: Annotated[StrictStr, Field(min_length=1, max_length=120)] | None = None
    quickPrompts: list[_QuickPrompt] | None = None  # noqa: N815
    workflowShortcuts: list[Text] | None = None  # noqa: N815


class _Param(BaseModel):  # the schema leaves command params open
    name: StrictStr
    description: StrictStr
    required: StrictBool | None = None
    default: StrictStr | None = None


class _Command(_Closed):
    name: Text
    description: Text
    prompt: Text
    parameters: StrictStr | None = None
    params: list[_Param] | None = None


class _Execution(_Closed):
    runtimeConnectionId: Text  # noqa: N815
    modelConnectionId: StrictStr | None = None  # noqa: N815
    modelId: StrictStr | None = None  # noqa: N815
    runtimeOptions: dict[str, Any] | None = None  # noqa: N815
    modelOptions: dict[str, Any] | None = None  # noqa: N815


class InlineServer(_Closed):
    """An MCP server written inline in ``tools.mcpServers`` (``InlineIntegration``)."""

    id: StrictStr
    kind: Literal["mcp"]
    displayName: StrictStr | None = None  # noqa: N815
    transport: Literal["stdio", "sse", "streamable-http", "process", "ws", "tcp"] | None = None
    command: StrictStr | None = None
    args: list[StrictStr] = Field(default_factory=list)
    requiredEnv: list[StrictStr] = Field(default_factory=list)  # noqa: N815
    permissions: dict[str, Any] | None = None


class Delegation(_Closed):
    """``AgentDelegationPolicy``."""

    maxDepth: Annotated[StrictInt, Field(ge=0)] | None = None  # noqa: N815
    allowedTools: list[StrictStr] | None = None  # noqa: N815
    blockedTools: list[StrictStr] | None = None  # noqa: N815
    denyApprovals: StrictBool | None = None  # noqa: N815


class Tools(_Closed):
    """``tools``: both spellings (real files: mcpServers/available/autoApprove)."""

    mcpServers: list[StrictStr | InlineServer] | None = None  # noqa: N815
    available: list[StrictStr] | None = None
    autoApprove: list[StrictStr] | None = None  # noqa: N815
    aliases: dict[str, StrictStr] | None = None
    env: dict[str, StrictStr] | None = None
    use: list[StrictStr] | None = None  # the spec's spelling
    allowed: list[StrictStr] | None = None


class AgentSpec(_Closed):
    """An ``agent.json`` (``AgentSpec``); ``prompt`` is required of the real layout's files."""

    name: Annotated[StrictStr, Field(min_length=1, max_length=100)]
    prompt: Text | None = None
    description: StrictStr | None = None
    model: StrictStr | None = None
    region: Annotated[StrictStr, Field(pattern=r"^[a-z]{2}-[a-z]+-[0-9]{1}$")] | None = None
    icon: StrictStr | None = None
    maxSteps: Annotated[StrictInt, Field(ge=1, le=100)] | None = None  # noqa: N815
    guardrails: _Guardrails | None = None
    tools: Tools | None = None
    streaming: _Streaming | None = None
    ui: _UI | None = None
    commands: dict[str, _Command] | None = None
    skills: list[StrictStr] | None = None
    prompts: list[StrictStr] | None = None
    execution: _Execution | None = None
    delegation: Delegation | None = None
    systemPrompt: StrictStr | None = None  # noqa: N815 - earlier toolkit spellings of prompt
    instructions: StrictStr | None = None


class _HealthCheck(_Closed):
    kind: Literal["jsonrpc", "http", "command"] | None = None
    path: StrictStr | None = None
    intervalMs: Annotated[StrictInt, Field(ge=1000)] | None = None  # noqa: N815


class _BuiltinPolicy(BaseModel):  # the schema leaves it open
    model_config = ConfigDict(extra="allow")

    name: Literal["fs_read", "fs_write", "shell_exec"]
    allowedPaths: list[StrictStr] | None = None  # noqa: N815
    timeout: Annotated[StrictInt, Field(ge=0)] | None = None


class _Permissions(_Closed):
    filesystem: StrictBool | None = None
    network: StrictBool | None = None
    allowedPaths: list[StrictStr] | None = None  # noqa: N815


class _Timeouts(_Closed):
    startupMs: Annotated[StrictInt, Field(ge=0)] | None = None  # noqa: N815
    requestMs: Annotated[StrictInt, Field(ge=0)] | None = None  # noqa: N815


class ToolDef(_Closed):
    """A ``tools/<id>/tool.json`` catalog entry (``ToolDef``)."""

    id: Annotated[StrictStr, Field(pattern=r"^[a-z0-9-]+$")]
    kind: Literal["mcp", "builtin"]
    displayName: StrictStr | None = None  # noqa: N815
    description: StrictStr | None = None
    transport: Literal["stdio", "process", "ws", "tcp"] | None = None
    command: StrictStr | None = None
    args: list[StrictStr] = Field(default_factory=list)
    endpoint: StrictStr | None = None
    env: dict[str, StrictStr] = Field(default_factory=dict)
    builtinPolicy: _BuiltinPolicy | None = None  # noqa: N815
    permissions: _Permissions | None = None
    timeouts: _Timeouts | None = None
    healthCheck: _HealthCheck | None = None  # noqa: N815
    exposedTools: list[StrictStr] | None = None  # noqa: N815 - a hint; discovery decides
