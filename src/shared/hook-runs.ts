/**
 * What crosses the activity boundary when hooks run: a tool-hook event's commands and prompts
 * for one call or prompt and what they decided, and the same for the Stop (SubagentStop) hooks.
 * Plain data: the workflow builds the inputs, the activities in src/activities/hooks/ run them.
 */
import type { ConversationMessage, TextOrRef } from './conversation';
import type { HookCommand, PromptHook, StopHook, ToolHookEvent } from './hooks';
import type { SandboxRequest } from './sandbox';
import type { TakenSnapshot } from './workspace';

/** What the tool-hook activity runs: the matched commands of one event, for one call or prompt. */
export interface ToolHookInput {
  sessionId: string;
  workdir: string;
  event: ToolHookEvent;
  hooks: HookCommand[];
  /** The matched `prompt` hooks, judged by the small model after the commands ran (absent: none). */
  prompts?: PromptHook[];
  sandbox?: SandboxRequest;
  /**
   * PreToolUse and PostToolUse: the call. `mcp`: it goes to this MCP server's tool (a PreToolUse
   * hook's `updatedInput` is planned again as such a call).
   */
  tool?: { name: string; toolUseId: string; input: unknown; mcp?: { server: string; tool: string } };
  /** PostToolUse: the call's result (its text read from the store when stored), to hand the hooks and extend with their feedback. */
  result?: { content: TextOrRef; isError: boolean; filePath?: string };
  /** UserPromptSubmit: the prompt (stored when long). */
  prompt?: TextOrRef;
  /** The workspace before the hooks: they may change files, and their activity snapshots over it. */
  snapshotRef?: string;
  /**
   * Claude Code's fields of the event beyond the common ones, as the hook reads them (`source`,
   * `trigger`, `custom_instructions`, `error`, `notification_type`, `message`, `reason`, …).
   */
  eventFields?: Record<string, unknown>;
  /** The session's permission mode (`permission_mode`). */
  permissionMode?: string;
  /** In a sub-agent: its id (the parent's Task call id) and type (`agent_id`, `agent_type`). */
  agent?: { id: string; type: string };
  /** The conversation so far: the hooks' `transcript_path` is written from it and the messages not yet in it. */
  conversationRef?: string;
  pendingMessages?: ConversationMessage[];
}

export interface ToolHookOutcome {
  /** PreToolUse: the strongest decision of the hooks (deny, then ask, then allow); absent: they had no say. */
  decision?: 'allow' | 'deny' | 'ask';
  /** Why (deny, ask): what the model sees of a denial. */
  reason?: string;
  /** PostToolUse: the call's result content with the hooks' feedback after it (absent: no feedback). */
  content?: TextOrRef;
  /** UserPromptSubmit, SessionStart, SubagentStart: context the hooks add for the model; PreToolUse: context that goes with the call's result. */
  context?: string;
  /** PostToolUse: a hook's `updatedToolOutput` replaced the result the model sees (in `content`). */
  outputReplaced?: true;
  /** `systemMessage`s of the hooks: for the user (transcript, `watch`), not the model. */
  systemMessages?: string[];
  /** A hook said `suppressOutput`: the transcript does not quote what the hooks printed. */
  suppressOutput?: true;
  /** UserPromptSubmit: a hook blocked the prompt (exit 2, or `decision: "block"`), with its reason; PreCompact: the compaction. */
  blocked?: string;
  /** `{"continue":false}`: the run ends after this turn's tools (`hook_stopped`), with this reason. */
  stop?: string;
  /** Hooks that failed or timed out (they do not decide anything), for the transcript. */
  reports: string[];
  /** The workspace as the hooks left it, when the input named the snapshot before them. */
  snapshot?: TakenSnapshot;
}

export interface StopHookInput {
  /** `SubagentStop` in a sub-agent (its stop hooks are its parent's SubagentStop hooks); absent: `Stop`. */
  event?: 'SubagentStop';
  /** As ToolHookInput's: `permission_mode`, and `agent_id`, `agent_type` in a sub-agent. */
  permissionMode?: string;
  agent?: { id: string; type: string };
  sessionId: string;
  workdir: string;
  hooks: StopHook[];
  sandbox?: SandboxRequest;
  finalText: string;
  stopHookActive: boolean;
  /** Stop's `prompt` hooks, judged by the small model after the commands (absent: none). */
  prompts?: PromptHook[];
  /** The session's last snapshot: the hooks' activity snapshots the workspace over it when done. */
  snapshotRef?: string;
}

/** `snapshot`: the workspace as the hooks left it, when the input named the last snapshot. */
export type StopHookOutcome = { snapshot?: TakenSnapshot } & (
  | { kind: 'allow'; reports: string[] }
  | { kind: 'block'; reason: string; reports: string[] }
  | { kind: 'prevent'; reason: string; reports: string[] }
);
