import type { z } from 'zod';
import type { BackgroundRule, FileState, SessionControl, ToolRules } from '../../shared/activity-io';
import type { FileChange } from '../../shared/workspace';
import type { SkillEntry } from '../../shared/skills';
import type { CommandSandbox, SessionSandbox } from '../../sandbox/command-sandbox';
import type { EffectJournal } from '../../store/effect-journal';
import type { McpResourceAccess } from '../mcp/mcp-resources';
import type { WebAccess } from '../web/web-access';

/** What a tool sees of the session while it runs. */
export interface ToolContext {
  sessionId: string;
  toolUseId: string;
  /** This call across its retries: the workflow run and the activity id (the journal's key). */
  callKey: string;
  workdir: string;
  /** Temporal attempt number: above 1, an earlier attempt of this very call was interrupted. */
  attempt: number;
  /**
   * The interrupted attempt ran on a host that was lost; the session moved, and the workspace is
   * the snapshot taken before the call: that attempt's changes to files are not in it.
   */
  lostWithHost?: boolean;
  /** Content hash of each file the session has read or written, as it saw it last. */
  knownFiles: ReadonlyMap<string, string>;
  /** Records side effects so a retried call neither applies them twice nor reports a false failure. */
  journal: EffectJournal;
  /** Aborted when Temporal cancels the activity. */
  signal: AbortSignal;
  /** Where commands run: this worker's sandbox, with what the session asked of it. */
  sandbox: CommandSandbox;
  sessionSandbox?: SessionSandbox;
  /** Sees a command's output as it comes: the last line goes to watchers as progress. */
  onOutput?: (chunk: string) => void;
  /** A person approved this very call. */
  approved?: boolean;
  /** The session's skills (sessions with skills only): their list and each one's instructions. */
  skills?: { list(): Promise<SkillEntry[]>; body(skill: SkillEntry): Promise<string> };
  /**
   * The files changed since the session's last snapshot (taken before this call), when the session
   * keeps snapshots: a command retried after its worker died reports them instead of running again.
   */
  changesSinceSnapshot?: () => Promise<FileChange[]>;
  /** The session's MCP servers' resources, for a tool that `readsMcpServers`. */
  mcp?: McpResourceAccess;
  /** The web as the session may reach it (WebFetch, WebSearch), when the worker offers it and the session has network. */
  web?: WebAccess;
}

/** What decides whether a conditional tool is offered to the session's model at all. */
export interface ToolOffer {
  /** One of the session's MCP servers offers resources. */
  mcpResources: boolean;
  /** The worker fetches for sessions (AGENT_WEB_FETCH=1) and this session has network. */
  webFetch: boolean;
  /** The worker searches for sessions (AGENT_WEB_SEARCH=1) and this session has network. */
  webSearch: boolean;
  /** The session has skills (`.claude/skills`, AGENT_SKILLS_DIR). */
  skills: boolean;
}

export interface ToolOutput {
  text: string;
  isError?: boolean;
  fileState?: FileState;
  /** Images or documents for the model to see, base64 (run-tool stores them and keeps references). */
  media?: { kind: 'image' | 'document'; mediaType: string; base64: string; estimatedChars: number }[];
}

/**
 * One tool, declared once with everything about it (opencode style): the zod schema validates
 * input and produces the API's `input_schema`; the rules say how the loop treats its calls; the
 * pure functions run in the model activity to plan each call; `execute` does the work in the
 * tool activity.
 *
 * The workflow never sees this object: `ToolRegistry.plan` copies the rules onto each planned
 * call, so adding a tool is this file plus one line in registry.ts (and its name in
 * shared/tool-names.ts, the input's contract).
 */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: Schema;

  /** permissionMode "ask": each call waits for a person unless an allow rule matches its subject. */
  needsApproval: boolean;
  /** Whether this call, with this input, may run at the same time as other safe calls. */
  isConcurrencySafe(input: z.infer<Schema>): boolean;
  /** An error result cancels the calls after it in the same response (Claude Code's Bash rule). */
  cancelsLaterCallsOnError: boolean;
  /** Start-to-close timeout of the call's activity, when the default (5 minutes) does not fit. */
  activityTimeoutMs?(input: z.infer<Schema>): number;
  /** Whether microcompact may clear its old results: the model can run the call again. */
  resultsClearable: boolean;
  /** The call reads its target file: it joins the recent files re-attached after a compaction. */
  readsFile: boolean;
  /** The call may change files in the workdir: its turn ends with a workspace snapshot. */
  changesFiles: boolean;
  /**
   * The workflow tracks the call as a background command (turn/background-tasks.ts): `start` runs
   * it as a tool activity the turn does not wait for (Bash `run_in_background`); `output` and
   * `stop` read or stop one (TaskOutput, TaskStop), with no activity of their own.
   */
  background?(input: z.infer<Schema>): BackgroundRule | undefined;
  /** Its summary says all a progress view needs (`Read src/a.ts`): alone in a batch, no small model labels it. */
  labelsItself?: boolean;
  /** The workflow runs the call as a child workflow (Agent), not as a tool activity. */
  runsAsSubAgent?: boolean;
  /**
   * Why this valid input cannot be honoured (yet): the call gets this as an `is_error` result
   * before anything runs or asks a person (Agent's `isolation`, Bash's `run_in_background`).
   */
  refusal?(input: z.infer<Schema>): string | undefined;
  /** It edits its target file (Write, Edit): permission mode acceptEdits lets such calls through. */
  editsFiles?: boolean;
  /** Other names permission rules give it (Write: `Edit`; Glob, Grep: `Read`; the sub-agent tool: `Agent` and `Task`). */
  ruleNames?: readonly string[];
  /** The path `Read(…)` rules match when it has no target file (Glob and Grep: the directory searched). */
  rulePath?(input: z.infer<Schema>): string | undefined;
  /** What `Tool(content)` rules match when it has no path or command (a sub-agent's type). */
  ruleSpecifier?(input: z.infer<Schema>): string | undefined;
  /** The call reads the session's MCP servers: its activity gets their configuration (`context.mcp`). */
  readsMcpServers?: boolean;
  /** Offered only when this says so (absent: always, as `allowedTools` permits). */
  offered?(offer: ToolOffer): boolean;
  /** The call loads one of the session's skills (Skill): it is offered, and runs, only with them. */
  loadsSkill?: boolean;
  /** The workflow carries the call out itself (plan mode, questions to the user): `execute` is never called. */
  sessionControl?: SessionControl;
  /** What allow rules match (`Bash(npm test)` matches `npm test`) and collapse notes name. */
  subject(input: z.infer<Schema>): string;
  /** What approval needs beyond the subject: the commands a call runs, or why rules may not approve it. */
  approvalFacts?(
    input: z.infer<Schema>,
    target: { workdir: string; filePath?: string },
  ): ApprovalFacts | Promise<ApprovalFacts>;

  /** One line for the Temporal UI, e.g. `Read src/config.js`. */
  summarize(input: z.infer<Schema>): string;
  /** The file the call reads or writes, if any (relative or absolute as the model gave it). */
  targetPath?(input: z.infer<Schema>): string | undefined;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput>;
}

export type ApprovalFacts = Pick<ToolRules, 'commands' | 'notMatchable' | 'alwaysAsk'>;

/** A failure the model can act on: becomes an `is_error` tool result, never a retry. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Keeps the tool's name as a literal type, so the registry can be checked against TOOL_NAMES. */
export function defineTool<const Name extends string, Schema extends z.ZodType>(
  definition: ToolDefinition<Schema> & { name: Name },
): ToolDefinition<Schema> & { name: Name } {
  return definition;
}
