import { z } from 'zod';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_FALLBACK_AFTER_OVERLOADS,
  DEFAULT_HOST_LOSS_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_TURNS,
  MAX_INLINE_PROMPT_BYTES,
  MAX_OUTPUT_TOKENS_ACCEPTED,
} from './limits';
import type { ConversationMessage } from './conversation';
import { AGENT_NAME_PATTERN, agentsSchema, DEFAULT_MAX_PARALLEL_AGENTS } from './sub-agents';
import { type McpServers, mcpServersSchema } from './mcp';
import { TOOL_NAMES } from './tool-names';
import { PERMISSION_MODE_NAMES, type PermissionModeName } from './permission-modes';
import { permissionsInputSchema, type PermissionsInput } from './permissions';
import { allowedDomainSchema, MAX_ALLOWED_DOMAINS, type NetworkMode } from './sandbox';
import {
  hookGroups,
  hooksInputSchema,
  type SkippedSetting,
  skippedInputHandlers,
  skippedInputHooks,
  type StopHook,
  stopHookSchema,
  type ToolHooks,
  toolHooksOf,
} from './hooks';

/** Stop hooks are defined with the other hooks (hooks.ts); named here too, where the input was always read from. */
export { type StopHook, stopHookSchema };
import { ON_BUSY_WORKDIR_VALUES, type OnBusyWorkdir } from './workdir-lease';
import { type OutputFormat, outputFormatSchema } from './structured-output';

/**
 * The one JSON object `agentWorkflow` is started with. Part of the public contract: field names
 * are used from shells (`temporal workflow start --input '{...}'`) and other tools.
 *
 * Pure zod: imported by the workflow, the CLI and the tests alike.
 */
/**
 * Files a fork's `readState` may name: more than a session usually reads, and small in the fork's
 * start event (query `checkpoint` answers at most this many, the latest; the rest are read again).
 */
export const MAX_FORK_READ_STATE_FILES = 2_000;

/** A path relative to the workdir, one that stays beneath it: no leading `/`, no `.`, `..` or empty component. */
function isRelativeBeneath(path: string): boolean {
  const beneath = path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
  return beneath && path.length <= 1024 && !path.includes('\0');
}

/** What the original had read by the fork's turn: path → sha256 of the content it saw. */
const forkReadStateSchema = z
  .record(z.string(), z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 (64 hex digits)'))
  .superRefine((readState, context) => {
    const paths = Object.keys(readState);
    if (paths.length > MAX_FORK_READ_STATE_FILES) {
      context.addIssue({ code: 'custom', message: `names more than ${MAX_FORK_READ_STATE_FILES} files` });
    }
    const outside = paths.find((path) => !isRelativeBeneath(path));
    if (outside !== undefined) {
      const message = 'must be a path relative to the workdir, beneath it';
      context.addIssue({ code: 'custom', path: [outside], message });
    }
  });

/**
 * A fork: the session starts from another session's turn (what query `checkpoint` answers),
 * materializes that turn's files into its (empty) workdir, and continues with `prompt`.
 */
export const forkSchema = z
  .object({
    workflowId: z.string().min(1),
    turn: z.number().int().min(0),
    snapshotRef: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be a snapshot reference (sha256:…)'),
    conversationRef: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'must be a content reference (sha256:…)')
      .nullable(),
    messageCount: z.number().int().min(0),
    pending: z.array(z.object({ role: z.enum(['user', 'assistant']), kind: z.string() }).passthrough()),
    contextTokens: z.number().min(0),
    endsWithUser: z.boolean(),
    model: z.string().min(1).optional(),
    readState: forkReadStateSchema.optional(),
  })
  .strict();

/** The pending messages are checked for shape only: they come from query `checkpoint`. */
export type ForkInput = Omit<z.infer<typeof forkSchema>, 'pending'> & { pending: ConversationMessage[] };

/**
 * A session whose workspace is not tied to a host: the host that prepares it clones `url` (at
 * `ref`, else the default branch) into its workspace root, and the session's changes end up on
 * the branch `durable-agent/<session id>`, pushed back when the remote allows it.
 */
export const repoSchema = z
  .object({
    url: z.string().trim().min(1, 'must be a git URL the workers can clone (https://…, ssh://…, file:///…)'),
    ref: z
      .string()
      .regex(/^[^-\s]\S*$/, 'must be a branch, tag or commit of the repository')
      .optional(),
  })
  .strict();

export type RepoInput = z.infer<typeof repoSchema>;

export const agentInputSchema = z
  .object({
    prompt: z.string().trim().min(1, 'must be a non-empty string').optional(),
    /** A prompt stored in the store (`durable-agent store-prompt`): the session loads it in an activity. */
    promptRef: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'must be a content reference (sha256:…) from durable-agent store-prompt')
      .optional(),
    workdir: z
      .string()
      .min(1, 'must be an absolute path on the worker host')
      .refine(
        (path) => path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path),
        'must be an absolute path on the worker host',
      )
      .optional(),
    repo: repoSchema.optional(),
    model: z.string().min(1).optional(),
    maxTurns: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS_ACCEPTED).optional(),
    systemPrompt: z.string().optional(),
    allowedTools: z.array(z.enum(TOOL_NAMES)).optional(),
    contextWindowTokens: z.number().int().min(4096).optional(),
    fallbackModel: z.string().min(1).optional(),
    fallbackAfterOverloads: z.number().int().positive().optional(),
    maxRateLimitWaitMs: z.number().int().nonnegative().optional(),
    stopHooks: z.array(stopHookSchema).optional(),
    hooks: hooksInputSchema.optional(),
    tokenBudget: z.number().int().positive().optional(),
    /** Issue 26: USD the session may spend, its sub-agents included; reached: it stops with `max_budget`. */
    maxBudgetUsd: z.number().finite().positive().max(1_000_000).optional(),
    outputFormat: outputFormatSchema.optional(),
    interactive: z.boolean().optional(),
    permissionMode: z.enum(PERMISSION_MODE_NAMES).optional(),
    permissions: permissionsInputSchema.optional(),
    // Tool names are letters; an MCP tool's is `mcp__server__tool` (or `mcp__server`, `mcp__server__*`: all of a server's).
    allowRules: z
      .array(
        z
          .string()
          .regex(
            /^([A-Za-z]+|mcp__[A-Za-z0-9_-]+(__\*)?)(\(.*\))?$/,
            'must look like Bash(npm test), Read or mcp__server__tool',
          ),
      )
      .optional(),
    approvalTimeoutMs: z.number().int().positive().optional(),
    toolSummaries: z.boolean().optional(),
    continueAsNewAfterTurns: z.number().int().positive().optional(),
    sandboxEnv: z
      .record(z.string(), z.string())
      .superRefine((env, context) => {
        for (const name of Object.keys(env)) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
            context.addIssue({ code: 'custom', path: [name], message: 'must be a variable name like NODE_ENV' });
        }
      })
      .optional(),
    network: z.union([z.boolean(), z.enum(['filtered', 'none', 'host'])]).optional(),
    allowedDomains: z.array(allowedDomainSchema).max(MAX_ALLOWED_DOMAINS).optional(),
    trustRepoHooks: z.boolean().optional(),
    mcpServers: mcpServersSchema.optional(),
    fork: forkSchema.optional(),
    host: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "must be a worker's AGENT_HOST_ID")
      .optional(),
    hostLossTimeoutMs: z.number().int().min(1000).optional(),
    onBusyWorkdir: z.enum(ON_BUSY_WORKDIR_VALUES).optional(),
    agents: agentsSchema.optional(),
    maxParallelAgents: z.number().int().positive().max(32).optional(),
    /** Set by the `Task` tool on the sub-agents it starts: whose call they answer. */
    parentSession: z
      .object({
        workflowId: z.string().min(1),
        toolUseId: z.string().min(1),
        description: z.string(),
        /** Its type (`subagent_type`): hooks read it as `agent_type`. */
        agentType: z.string().min(1).max(64).optional(),
        /** The tools its type asked for that the parent does not have (a note for its transcript; it grants nothing). */
        toolsLeftOut: z
          .object({
            agentType: z.string().regex(AGENT_NAME_PATTERN),
            tools: z.array(z.enum(TOOL_NAMES)).min(1).max(TOOL_NAMES.length),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Internal: the state a run carries into the next one when it continues as new. */
    resume: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((input, context) => {
    const issue = (field: string, message: string) => context.addIssue({ code: 'custom', path: [field], message });
    if (input.prompt === undefined && input.promptRef === undefined)
      issue('prompt', 'required (or promptRef: "sha256:…")');
    if (input.prompt !== undefined && input.promptRef !== undefined)
      issue('promptRef', 'give prompt or promptRef, not both');
    if (input.workdir === undefined && input.repo === undefined)
      context.addIssue({ code: 'custom', path: ['workdir'], message: 'required (or repo: {"url": "…"})' });
    if (input.workdir !== undefined && input.repo !== undefined)
      context.addIssue({ code: 'custom', path: ['repo'], message: 'give workdir or repo, not both' });
    if (input.repo !== undefined && input.fork !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['fork'],
        message: 'a fork needs a workdir (repo sessions cannot be forked yet)',
      });
  });

export type AgentInput = z.input<typeof agentInputSchema>;

export interface ResolvedAgentInput {
  /** Exactly one of `prompt` (the task inline) and `promptRef` (the task in the store) is set. */
  prompt?: string;
  promptRef?: string;
  /** Exactly one of `workdir` and `repo` is set. */
  workdir?: string;
  repo?: RepoInput;
  model?: string;
  maxTurns: number;
  maxOutputTokens: number;
  systemPrompt?: string;
  allowedTools: string[];
  contextWindowTokens?: number;
  fallbackModel?: string;
  fallbackAfterOverloads: number;
  /** Input `maxRateLimitWaitMs`: the total a session waits out rate limits before it ends `rate_limited` (unset: 6 h). */
  maxRateLimitWaitMs?: number;
  /** Input `stopHooks`, then input `hooks.Stop`. */
  stopHooks: StopHook[];
  /** Input `hooks` other than Stop (PreToolUse, PostToolUse, UserPromptSubmit), and Stop's `prompt` hooks, when it has any. */
  toolHooks?: ToolHooks;
  /** Hooks of input `hooks` that are not run, with why (file `input`): Claude Code's events we do not run, unknown names, `agent`, `http` and `mcp_tool` handlers. */
  skippedHooks?: SkippedSetting[];
  tokenBudget?: number;
  /** USD the session may spend (model calls priced by the worker's table), its sub-agents included. */
  maxBudgetUsd?: number;
  /** Input `outputFormat`: the final answer is a StructuredOutput call matching its schema (shared/structured-output.ts). */
  outputFormat?: OutputFormat;
  interactive: boolean;
  /** Input `permissionMode`, else `permissions.defaultMode`, else `auto` (read it with permissionModeOf). */
  permissionMode: PermissionModeName;
  /** Neither was given: a trusted repository's `defaultMode` applies, when it has one. */
  permissionModeDefaulted?: true;
  allowRules: string[];
  /** Input `permissions`: allow, deny and ask rules in Claude Code's syntax. */
  permissions?: PermissionsInput;
  approvalTimeoutMs: number;
  toolSummaries: boolean;
  continueAsNewAfterTurns?: number;
  /** Extra environment variables for the session's commands (they see no other of the worker's). */
  sandboxEnv?: Record<string, string>;
  /** How the session's commands reach the network (`true`: the default, filtered; `false`: none). */
  network: boolean | NetworkMode;
  /** Hosts the session's commands may reach besides the worker's allowed domains. */
  allowedDomains?: string[];
  /** The repository's own hooks (`.agent/settings.json`, `.claude/settings.json`) may run. */
  trustRepoHooks: boolean;
  /** MCP servers in Claude Code's format (src/shared/mcp.ts); `.mcp.json`'s join them when trusted. */
  mcpServers?: McpServers;
  /** The session is a fork of another one's turn. */
  fork?: ForkInput;
  /** The worker host (`AGENT_HOST_ID`) whose workdir the session works in; unset: whichever prepares it. */
  host?: string;
  /** How long a workspace activity may wait for its host before the host counts as lost. */
  hostLossTimeoutMs: number;
  /** Another session holds the workdir: wait for it (the default) or fail naming it. */
  onBusyWorkdir: OnBusyWorkdir;
  /** Types of sub-agents for the `Task` tool, by name (besides the built-in one and the repository's). */
  agents?: z.infer<typeof agentsSchema>;
  /** How many sub-agents run at the same time. */
  maxParallelAgents: number;
  /** This session is a sub-agent: the session and the `Task` call it answers. */
  parentSession?: {
    workflowId: string;
    toolUseId: string;
    description: string;
    agentType?: string;
    toolsLeftOut?: { agentType: string; tools: string[] };
  };
  resume?: Record<string, unknown>;
}

/** A command run when the model ends a turn (input `stopHooks`, or the workdir's settings). */

export type InputCheck = { ok: true; input: ResolvedAgentInput } | { ok: false; message: string };

/** UTF-8 bytes of `text`, counted without Buffer (workflow code calls this). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Why an inline prompt is refused (over MAX_INLINE_PROMPT_BYTES), or undefined. */
export function inlinePromptProblem(prompt: string | undefined): string | undefined {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most prompts need no counting.
  if (prompt === undefined || prompt.length * 3 <= MAX_INLINE_PROMPT_BYTES) return undefined;
  const bytes = utf8Bytes(prompt);
  if (bytes <= MAX_INLINE_PROMPT_BYTES) return undefined;
  return (
    `Invalid agentWorkflow input: prompt: ${Math.ceil(bytes / 1024)} KB is over the ${MAX_INLINE_PROMPT_BYTES / 1024} KB ` +
    'an inline prompt may have; store it with `durable-agent store-prompt <file>` and pass {"promptRef":"sha256:…"} instead ' +
    '(durable-agent run does this by itself)'
  );
}

/** One schema issue as people read it: the field's path, `required` for a missing one, unknown fields by name. */
function issueProblem(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `unknown field(s): ${issue.keys.map((key) => [...issue.path, key].join('.')).join(', ')}`;
  const field = issue.path.length ? issue.path.join('.') : '(input)';
  const missing = issue.code === 'invalid_type' && issue.message.includes('undefined');
  return `${field}: ${missing ? 'required' : issue.message}`;
}

/**
 * What bounds the session and its answer: its output tokens (`tokenBudget`), and, only when given
 * (issue 26), the USD it may spend (`maxBudgetUsd`) and the format of its answer (`outputFormat`).
 */
function budgetFields(
  input: z.infer<typeof agentInputSchema>,
): Pick<ResolvedAgentInput, 'tokenBudget' | 'maxBudgetUsd' | 'outputFormat'> {
  return {
    tokenBudget: input.tokenBudget,
    ...(input.maxBudgetUsd !== undefined ? { maxBudgetUsd: input.maxBudgetUsd } : {}),
    ...(input.outputFormat ? { outputFormat: input.outputFormat } : {}),
  };
}

const NOT_AN_OBJECT = 'agentWorkflow takes one JSON object, e.g. {"prompt":"…","workdir":"/abs/repo"}';

/**
 * Validates raw input; the message names every offending field, e.g. `workdir: Required`.
 * `inlinePromptLimit: false` leaves the prompt's size to the caller (the workflow, whose older
 * sessions replay without the limit; our CLI, which stores a long prompt before it starts).
 */

export function checkAgentInput(raw: unknown, options: { inlinePromptLimit?: boolean } = {}): InputCheck {
  if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: NOT_AN_OBJECT };
  }
  const parsed = agentInputSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, message: `Invalid agentWorkflow input: ${parsed.error.issues.map(issueProblem).join('; ')}` };
  }
  const input = parsed.data;
  const tooBig = options.inlinePromptLimit === false ? undefined : inlinePromptProblem(input.prompt);
  if (tooBig) return { ok: false, message: tooBig };
  const toolHooks = toolHooksOf(input.hooks);
  const skippedHooks = [...skippedInputHooks(input.hooks), ...skippedInputHandlers(input.hooks)];
  return {
    ok: true,
    input: {
      ...(input.prompt !== undefined ? { prompt: input.prompt } : { promptRef: input.promptRef! }),
      ...(input.workdir !== undefined ? { workdir: input.workdir } : {}),
      ...(input.repo ? { repo: input.repo } : {}),
      model: input.model,
      maxTurns: input.maxTurns ?? DEFAULT_MAX_TURNS,
      maxOutputTokens: input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      systemPrompt: input.systemPrompt,
      allowedTools: input.allowedTools ?? [...TOOL_NAMES],
      contextWindowTokens: input.contextWindowTokens,
      fallbackModel: input.fallbackModel,
      fallbackAfterOverloads: input.fallbackAfterOverloads ?? DEFAULT_FALLBACK_AFTER_OVERLOADS,
      ...(input.maxRateLimitWaitMs !== undefined ? { maxRateLimitWaitMs: input.maxRateLimitWaitMs } : {}),
      stopHooks: [...(input.stopHooks ?? []), ...hookGroups(input.hooks?.Stop).flatMap((group) => group.hooks)],
      ...(toolHooks ? { toolHooks } : {}),
      ...(skippedHooks.length ? { skippedHooks } : {}),
      ...budgetFields(input),
      interactive: input.interactive ?? false,
      permissionMode: input.permissionMode ?? input.permissions?.defaultMode ?? 'auto',
      ...(input.permissionMode === undefined && input.permissions?.defaultMode === undefined
        ? { permissionModeDefaulted: true as const }
        : {}),
      allowRules: input.allowRules ?? [],
      ...(input.permissions ? { permissions: input.permissions } : {}),
      approvalTimeoutMs: input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      toolSummaries: input.toolSummaries ?? true,
      continueAsNewAfterTurns: input.continueAsNewAfterTurns,
      sandboxEnv: input.sandboxEnv,
      network: input.network ?? true,
      ...(input.allowedDomains?.length ? { allowedDomains: input.allowedDomains } : {}),
      trustRepoHooks: input.trustRepoHooks ?? false,
      ...(input.mcpServers ? { mcpServers: input.mcpServers } : {}),
      ...(input.fork ? { fork: input.fork as ForkInput } : {}),
      ...(input.host ? { host: input.host } : {}),
      hostLossTimeoutMs: input.hostLossTimeoutMs ?? DEFAULT_HOST_LOSS_TIMEOUT_MS,
      onBusyWorkdir: input.onBusyWorkdir ?? 'wait',
      ...(input.agents ? { agents: input.agents } : {}),
      maxParallelAgents: input.maxParallelAgents ?? DEFAULT_MAX_PARALLEL_AGENTS,
      ...(input.parentSession ? { parentSession: input.parentSession } : {}),
      resume: input.resume,
    },
  };
}
