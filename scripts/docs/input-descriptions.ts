/**
 * What each field of the workflow input means, for docs/input.md. The types and limits come from
 * the zod schema (src/shared/input.ts); this map holds what the schema cannot say: the meaning,
 * and the default the workflow applies (`checkAgentInput`), from the same constants it uses.
 *
 * Every field of the schema needs an entry: test/unit/docs/input-reference.test.ts fails when one
 * has none, so a new input field cannot ship undocumented. Links are relative to docs/.
 */
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_FALLBACK_AFTER_OVERLOADS,
  DEFAULT_HOST_LOSS_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_TURNS,
  MAX_INLINE_PROMPT_BYTES,
} from '../../src/shared/limits';
import { MCP_STARTUP_TIMEOUT_MAX_MS, MCP_STARTUP_TIMEOUT_MS } from '../../src/shared/mcp';
import { MAX_FORK_READ_STATE_FILES } from '../../src/shared/input';
import { DEFAULT_MAX_PARALLEL_AGENTS } from '../../src/shared/sub-agents';
import { TOOL_NAMES } from '../../src/shared/tool-names';

export interface FieldDoc {
  /** What the field means, in Markdown (one line in the table). */
  description: string;
  /** What the workflow uses when the field is absent, in Markdown; `—` when nothing. */
  default?: string;
}

const number = (value: number) => value.toLocaleString('en-US');
const code = (value: string | number | boolean) => `\`${value}\``;

export const INPUT_FIELD_DOCS: Record<string, FieldDoc> = {
  prompt: {
    default: 'required (or `promptRef`)',
    description:
      `the task, at most ${MAX_INLINE_PROMPT_BYTES / 1024} KB (UTF-8); a longer one fails the session at once with an ` +
      '`InvalidWorkflowInput` error naming `promptRef` (see [Big prompts](temporal-cli.md#big-prompts))',
  },
  promptRef: {
    description:
      'instead of `prompt`: a prompt in the store (`durable-agent store-prompt <file>` prints it, `sha256:…`), loaded ' +
      'by the worker when the session starts; history holds only the reference',
  },
  workdir: {
    default: 'required (or `repo`)',
    description: 'absolute path of the repository on the worker host',
  },
  repo: {
    description:
      'instead of `workdir`: a repository the worker clones (`https://…`, `ssh://…`, `file:///…`), at `ref` (branch, ' +
      'tag or commit; default its default branch); the changes end on the branch `durable-agent/<workflow id>` (an id ' +
      'git refuses in a branch name, e.g. a schedule’s with colons, or one over 100 bytes, has those characters ' +
      'replaced by `-`, is cut, and ends with a hash of the whole id: ' +
      '`durable-agent/lint-2026-12-01T13-16-03Z-3f0c9a1b2d`), pushed when the remote allows it (see ' +
      '[Running many workers](many-workers.md))',
  },
  model: { default: '`AGENT_MODEL`', description: 'model name' },
  maxTurns: { default: code(DEFAULT_MAX_TURNS), description: 'model calls before stopping with `max_turns`' },
  maxOutputTokens: {
    default: code(DEFAULT_MAX_OUTPUT_TOKENS),
    description:
      '`max_tokens` of each model call; above the model’s own output limit (model table, `src/shared/models.ts`) ' +
      'each call asks for that limit instead',
  },
  systemPrompt: { description: 'appended to the built-in system prompt' },
  allowedTools: {
    default: `all ${TOOL_NAMES.length}`,
    description:
      'the tools the session may use, a subset of the built-in ones (`Task` is the old name of `Agent`, still accepted; see [Tools](tools.md)); ' +
      'some are offered only when they apply (MCP resources, the web tools)',
  },
  contextWindowTokens: {
    default: 'the model table’s',
    description: 'overrides the model’s context window (drives compaction)',
  },
  fallbackModel: { description: 'model to switch to after repeated overloads' },
  fallbackAfterOverloads: {
    default: code(DEFAULT_FALLBACK_AFTER_OVERLOADS),
    description: 'overloaded attempts in a row before switching to `fallbackModel`',
  },
  maxRateLimitWaitMs: {
    default: '`21600000` (6 h)',
    description:
      'the total time a session waits out rate limits (429, or 529 with no fallback left) on durable timers, ' +
      'status `waiting_rate_limit`; a wait that would pass it ends the session `rate_limited`, its work kept ' +
      '(see [Rate limits](context-recovery.md#rate-limits))',
  },
  stopHooks: {
    description:
      'run when the model ends a turn without tool calls (see [Stop hooks](hooks.md#stop-hooks)); `timeoutMs` ' +
      'in milliseconds',
  },
  hooks: {
    description:
      'hooks in Claude Code’s settings format: `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",' +
      '"command":"…","timeout":30}]}], "PostToolUse":[…], "UserPromptSubmit":[…], "Stop":[…], "SessionStart":[…], …}`; ' +
      'always run. Claude Code’s events we do not run are accepted and listed as skipped (see [Hooks](hooks.md))' +
      '; handler types `command` and `prompt` (the small model decides); `agent`, `http` and `mcp_tool` hooks are noted as not run',
  },
  tokenBudget: { description: 'output tokens to spend: below 90% the model is nudged to keep working' },
  maxBudgetUsd: {
    description:
      'USD the session may spend, its sub-agents included (each call priced by the worker’s table, ' +
      '[Cost and budgets](result.md#cost-and-budgets)): once reached, the session stops before its next turn with `max_budget`; ' +
      'a sub-agent gets what its parent has left',
  },
  outputFormat: {
    description:
      'structured output, as Claude Code’s `outputFormat`: `{"type":"json_schema","schema":{"type":"object",…}}`; ' +
      'the model answers with a `StructuredOutput` call checked against the schema (asked again with the errors, ' +
      'at most 5 attempts, else reason `structured_output_retry_exhausted`); the result’s `structuredOutput` ' +
      '(see [Result](result.md#structured-output))',
  },
  interactive: {
    default: code(false),
    description: 'after each answer, wait for `userMessage` (or `end`) instead of closing',
  },
  permissionMode: {
    default: '`"auto"`',
    description:
      'Claude Code’s modes: `default` (Write, Edit, Bash and MCP calls wait for `approveTool` unless a rule allows ' +
      'them), `acceptEdits` (file edits go ahead), `plan` (read-only tools only until a person approves `ExitPlanMode`: [plan-mode.md](plan-mode.md)), `bypassPermissions` (nothing waits), ' +
      '`dontAsk` (what would wait is refused); `auto` = `bypassPermissions`, `ask` = `default` (see ' +
      '[permissions](permissions.md#modes))',
  },
  permissions: {
    description:
      'rules in Claude Code’s syntax, deny → ask → allow: `{"deny":["Bash(rm -rf:*)","Read(./.env)"],' +
      '"ask":["Bash(git push:*)"],"allow":["Bash(npm run *)","Edit(src/**)"]}`; `defaultMode` when ' +
      '`permissionMode` is not given; a non-empty `additionalDirectories` is refused (see ' +
      '[permissions](permissions.md))',
  },
  allowRules: {
    description:
      'calls that never wait, in Claude Code’s syntax: `Bash(npm test)`, `Bash(npm run test:*)`, `Edit`, ' +
      '`mcp__tracker__lookup`, `mcp__tracker` (see [allow rules](security.md#workdirs-repository-hooks-and-allow-rules), ' +
      '[MCP servers](mcp.md))',
  },
  approvalTimeoutMs: {
    default: code(number(DEFAULT_APPROVAL_TIMEOUT_MS)),
    description: 'an unanswered approval is denied after this',
  },
  toolSummaries: {
    default: code(true),
    description:
      'after each tool batch, the small model (`AGENT_SMALL_MODEL`) writes a one-line summary; a batch of one Read, ' +
      'Glob or Grep that succeeded is its own summary (`Read src/a.ts`), with no model call',
  },
  continueAsNewAfterTurns: {
    description: 'continue as new after this many turns in a run (it always does when Temporal suggests it)',
  },
  sandboxEnv: {
    description: 'extra environment variables for the session’s commands, e.g. `{"NODE_ENV":"test"}`',
  },
  network: {
    default: '`"filtered"`',
    description:
      'how the session’s commands reach the network (see [Network](security.md#network)): through the worker’s ' +
      'egress proxy to the allowed domains only; not at all; or the worker’s own network, only where the worker ' +
      'allows it (`AGENT_SANDBOX_ALLOW_HOST_NETWORK=1`). `true` means `"filtered"`, `false` `"none"`',
  },
  allowedDomains: {
    description:
      'hosts the session’s commands may reach through the proxy besides the worker’s ' +
      '(`AGENT_SANDBOX_ALLOWED_DOMAINS`): `registry.corp.example`, `*.corp.example`, `host:port`; sub-agents get ' +
      'their parent’s',
  },
  trustRepoHooks: {
    default: code(false),
    description:
      'run the hooks of the repository’s `.agent/settings.json`, `.claude/settings.json` and ' +
      '`.claude/settings.local.json`, start the MCP servers of its `.mcp.json` and use its `.claude/agents/*.md` ' +
      '(see [Security](security.md#workdirs-repository-hooks-and-allow-rules))',
  },
  mcpServers: {
    description:
      'MCP servers in Claude Code’s format, by name (letters, digits, `_`, `-`; no `__`): stdio `{ command, args?, ' +
      'env?, type?: "stdio", startupTimeoutMs? }` or streamable HTTP `{ type: "http", url, headers?, ' +
      `startupTimeoutMs? }\`; \`startupTimeoutMs\` (ours, default ${number(MCP_STARTUP_TIMEOUT_MS)}, ` +
      `${number(1000)} – ${number(MCP_STARTUP_TIMEOUT_MAX_MS)}) is how long a server may take to start and list its ` +
      'tools (see [MCP servers](mcp.md))',
  },
  fork: {
    description:
      'start as a fork of another session’s turn: what query `checkpoint` answers plus `workflowId` (see ' +
      '[Fork](workspaces.md#snapshots-rewind-fork-and-diff); `durable-agent fork` fills it in). Its optional `readState` (`{ "<path relative to ' +
      `the workdir>": "<sha256 hex>" }\`, at most ${number(MAX_FORK_READ_STATE_FILES)} files (query \`checkpoint\` ` +
      `answers the latest ${number(MAX_FORK_READ_STATE_FILES)}), paths beneath the workdir) is what the original had ` +
      'read by then: the fork’s Edits and Writes of those files work while their content is as read',
  },
  host: {
    default: 'the host that prepares it',
    description:
      'the worker host (`AGENT_HOST_ID`) that holds `workdir` (or clones `repo`): the session is prepared there and ' +
      'its workspace activities run there (see [Running many workers](many-workers.md))',
  },
  hostLossTimeoutMs: {
    default: code(number(DEFAULT_HOST_LOSS_TIMEOUT_MS)),
    description:
      'a workspace activity no worker of the session’s host picks up within this long means the host is lost: a ' +
      '`repo` session moves, a `workdir` session waits (see [Running many workers](many-workers.md))',
  },
  onBusyWorkdir: {
    default: '`"wait"`',
    description:
      'another session holds the `workdir`’s lease: wait until it is free (status `waiting_workdir`), or fail at ' +
      'once with `WorkdirBusy` naming that session’s workflow id (see ' +
      '[Workdir leases](workspaces.md#workdir-leases-one-session-per-workdir))',
  },
  agents: {
    description:
      'types of sub-agents for `Task`, Claude Code’s `--agents` format (its `AgentDefinition`): `{"<name>": { ' +
      'description, prompt, tools?, disallowedTools?, model?, maxTurns?, permissionMode?, initialPrompt?, … }}`; ' +
      'every field is accepted, some are ignored (see [Sub-agents](sub-agents.md#agent-definitions))',
  },
  maxParallelAgents: {
    default: code(DEFAULT_MAX_PARALLEL_AGENTS),
    description: 'sub-agents of this session running at the same time',
  },
  parentSession: {
    description:
      'set by `Task` on the sub-agents it starts: the session and call they answer (a sub-agent reports its calls ' +
      'waiting for approval there, and runs no stop hooks); `agentType` is its type (hooks read it as `agent_type`); `toolsLeftOut` names the tools its type asked for that ' +
      'the parent does not have (a note for its transcript; it grants nothing)',
  },
  resume: {
    description: 'internal: the state a run carries into the next one when it continues as new; never set it by hand',
  },
};
