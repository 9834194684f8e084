/**
 * What a run of workflow code does differently from the runs recorded before it: one named flag
 * per behaviour, each read from a `patched()` marker, so that a session recorded before a
 * behaviour existed replays the behaviour it was recorded with. Modelled on sdk-typescript's
 * `packages/workflow/src/flags.ts`: a flag is named for what it gates, with `@since` (the day it
 * shipped) and the issue it came from.
 *
 * Two kinds:
 * - **Run flags** (`Features`), read once at a run's start by `readFeatures`, in this order (the
 *   order their markers were recorded in). One patch may gate several behaviours: `hardening`
 *   shipped six fixes at once, so six flags read the same marker.
 * - **Situational patches** (the `*_PATCH` ids below), asked with `patched()` only where their
 *   behaviour applies, so that runs that never met the situation record no marker.
 *
 * Retiring a patch (docs/patches-and-flags.md): once no worker version still running can have a
 * history from before it, `deprecatePatch(id)` replaces `patched(id)` for one release, then the
 * old branch, the flag and the histories recorded before it (test/fixtures/histories/before-<id>/)
 * are deleted. Patch ids are in recorded histories: never rename one.
 */

/** The patch ids read at a run's start, in the order they are asked. */
export const RUN_PATCHES = [
  'recovery-layers',
  'steering',
  'hardening',
  'durable-workspace',
  'stop-hook-limit',
] as const;
export type RunPatch = (typeof RUN_PATCHES)[number];

/** Behaviour that sessions recorded before it existed replay without. */
export interface Features {
  /**
   * Context edits before a turn and the recovery branches after a withheld error (prompt too
   * long, max output tokens, media too large).
   * @since 2026-11-29, issue 3 (patch `recovery-layers`)
   */
  recoveryLayers: boolean;
  /**
   * Stop hooks, token budget and queued messages weigh in at a completed turn; the state query
   * shows them; tool batches are summarised in the background.
   * @since 2026-11-29, issue 4 (patch `steering`)
   */
  steering: boolean;
  /**
   * A cancelled or interrupted session ends with a result: the model call or tools in flight stop
   * and their effects are awaited (hooks, activities), an interrupt that reaches a complete reply
   * stops the session, and the session closes even in a cancelled workflow.
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  cancellationEndsWithResult: boolean;
  /**
   * The session may continue as new at every turn boundary, not only after a tool turn.
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  continueAsNewAtEveryBoundary: boolean;
  /**
   * An interrupted batch waits for every call's outcome before the turn goes on.
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  batchWaitsForEveryCall: boolean;
  /**
   * A failed context-edit step degrades (the turn goes on unedited) instead of failing, and the
   * cheap edits run again only once the conversation has grown (`contextEditedAt`).
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  contextEditsDegradeAndPace: boolean;
  /**
   * A stop hook's block continues the turn with the reactive-compaction budget it had.
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  stopHookBlockKeepsCompactBudget: boolean;
  /**
   * The real context window is learned from a "prompt is too long" error, and autocompact keeps a
   * floor share of small windows.
   * @since 2026-11-30, issue 9 (patch `hardening`)
   */
  learnsContextWindow: boolean;
  /**
   * Snapshots after turns that change files, checkpoints, rewind, fork and diff.
   * @since 2026-11-30, issue 11 (patch `durable-workspace`)
   */
  durableWorkspace: boolean;
  /**
   * A stop hook that keeps blocking ends the run with `stop_hook_limit`; `hook_stopped` keeps its
   * reference meaning (a hook's `continue: false` after tools).
   * @since 2026-11-30, issue 15 (patch `stop-hook-limit`)
   */
  stopHookLimit: boolean;
}

/** The run flags, from the markers of RUN_PATCHES (asked through `patched`, in their order). */
export function readFeatures(patched: (id: RunPatch) => boolean): Features {
  const [recoveryLayers, steering, hardening, durableWorkspace, stopHookLimit] = RUN_PATCHES.map(patched);
  return {
    recoveryLayers,
    steering,
    cancellationEndsWithResult: hardening,
    continueAsNewAtEveryBoundary: hardening,
    batchWaitsForEveryCall: hardening,
    contextEditsDegradeAndPace: hardening,
    stopHookBlockKeepsCompactBudget: hardening,
    learnsContextWindow: hardening,
    durableWorkspace,
    stopHookLimit,
  };
}

/**
 * A session continues as new at a turn boundary once history grows (asked only then: sessions
 * that never grew that long record no marker).
 * @since 2026-11-29, issue 5
 */
export const CONTINUE_AS_NEW_PATCH = 'continue-as-new';

/**
 * A sub-agent's tools are those of its type that its parent has (`Task` only when both
 * allow it); what its type asked for beyond them is left out and noted in both transcripts.
 * Unlike the switches above, asked with `patched()` at each sub-agent's start (turn/sub-agents.ts): a
 * session already running when this shipped bounds its next sub-agents too, while the starts in
 * its history carry no marker and replay with the tools they were started with.
 *
 * Temporal's patching steps: `patched` now; `deprecatePatch` once no run started before it can
 * still replay (the parent's histories from before the bound are gone); then the branch removed.
 *
 * @since 2026-12-01, issue 22
 */
export const SUB_AGENT_BOUNDS_PATCH = 'sub-agent-bounds';

/**
 * Sub-agent types are Claude Code's `AgentDefinition`s: a type without `tools` inherits the
 * parent's but the sub-agent tool (it had Read, Glob, Grep), `disallowedTools`, `maxTurns`,
 * `permissionMode` (never looser than the parent's) and `initialPrompt` apply, the built-in
 * types are `general-purpose` (the default, which was `explore`) and `Explore`. Asked at each
 * start, like `sub-agent-bounds`: the starts in a history recorded before carry no marker and
 * replay with the tools, turns and mode they were started with.
 *
 * @since 2026-12-02, issue 25
 */
export const SUB_AGENT_DEFINITIONS_PATCH = 'sub-agent-definitions';

/**
 * A session's changes (the result's `filesChanged`, a `repo` session's branch) are
 * counted from the snapshot it started from even after a rewind to turn 0 that kept the files
 * made those turn 0's (`TurnLog.start`). Asked with `patched()` only when that happened, as the
 * session ends: sessions that ended before it replay comparing `snapshots[0]`, as they did.
 *
 * @since 2026-12-01, issue 22
 */
export const SESSION_START_PATCH = 'session-start-snapshot';

/**
 * A rewind puts back the read-state of its turn (checkpoints keep it, see
 * read-state.ts), so an Edit of a file the model read before the turn works after it. Asked with
 * `patched()` only when a rewind is carried out: sessions rewound before it replay the old
 * behaviour (every read forgotten when the files were put back, all kept when they were not).
 *
 * @since 2026-12-01, issue 23
 */
export const READ_STATE_PATCH = 'read-state-in-checkpoints';

/**
 * A signal whose input does not parse (message-inputs.ts) is dropped with a warning and
 * a transcript note. Before, some were acted on anyway (`interrupt` with any input, `approveTool`
 * with a number for feedback, `subAgentApprovals` with fields missing): asked with `patched()` at
 * each malformed signal, so histories recorded before replay what those signals did then.
 *
 * @since 2026-12-01, issue 23
 */
export const MALFORMED_SIGNALS_PATCH = 'malformed-signals-dropped';

/**
 * An inline prompt over MAX_INLINE_PROMPT_BYTES fails the session at once, naming
 * `promptRef`. Asked with `patched()` only for such a prompt: a session that started with one
 * before the limit replays without the marker and goes on as it was recorded.
 *
 * @since 2026-12-01, issue 23
 */
export const INLINE_PROMPT_LIMIT_PATCH = 'inline-prompt-limit';

/**
 * A call to a stdio MCP server (which runs in the workdir) snapshots the workspace when
 * it is done, so what the server wrote is in the turn's snapshot, `filesChanged` and `diff`.
 * Asked with `patched()` at each such call (turn/mcp-calls.ts): calls recorded before it replay
 * without a snapshot, as they ran.
 *
 * @since 2026-12-01, issue 23
 */
export const MCP_CALL_SNAPSHOT_PATCH = 'mcp-call-snapshot';

/**
 * A tool batch of one call that labels itself (a Read, Glob or Grep that succeeded;
 * `ToolRules.labelsItself`) gets the call's own summary as its tool summary, without the
 * small-model activity: no activity, and no workflow task for its answer, in such turns. Asked
 * with `patched()` at each such batch (turn/tool-turn.ts): batches recorded before it replay the
 * `summarizeToolBatch` they scheduled.
 *
 * @since 2026-12-01, issue 23
 */
export const SELF_LABELLED_BATCH_PATCH = 'self-labelled-tool-batch';

/**
 * The transcript is stored as it grows, a node per step (shared/transcript-chain.ts):
 * each model call carries the entries added since the last node, and the session's close only
 * the last ones, instead of the run's whole transcript and snapshots. The chain goes on across
 * continue-as-new. Asked with `patched()` at a run's first model call (or its close, or its
 * continue-as-new): runs recorded before it replay without the marker and close as they did.
 *
 * @since 2026-12-01, issue 23
 */
export const TRANSCRIPT_BY_REFERENCE_PATCH = 'transcript-by-reference';

/**
 * A run made by `temporal workflow reset` puts the files back to the latest snapshot its
 * history knows before its first tool, hook or rewind (session/reset.ts). Asked with `patched()` only in
 * such a run and only where that run's files were not yet put back, so the replayed part of a
 * reset run (the original run's events, recorded without the marker) replays as it ran. The id
 * asked is this constant and the run the files were last put in line under (`:<run id>`, `:none`
 * when unknown): a reset of a reset run replays the first run's put-back and does its own.
 *
 * @since 2026-12-01, issue 23
 */
export const RESET_AWARE_WORKSPACE_PATCH = 'reset-aware-workspace';

/**
 * One session per workdir: a lease taken after `prepareSession`, renewed by a keeper activity per run.
 *
 * @since 2026-12-01, issue 23
 */
export const WORKDIR_LEASE_PATCH = 'workdir-lease';

/**
 * Leases taken by `prepareSession` and held until the session ends, with no keeper: a keeper's
 * heartbeats were a server write every few seconds for every session in flight, and its activity
 * and the separate take and release were six of a short session's events. Asked before the
 * session is prepared; sessions recorded before replay the keeper.
 *
 * @since 2026-12-02, issue 23
 */
export const WORKDIR_LEASE_UNTIL_END_PATCH = 'workdir-lease-until-session-end';

/**
 * Allow rules with Claude Code's `*` wildcard (`Bash(npm run *)`, `Bash(*)`, `Bash()`): before,
 * a `*` in an input `allowRules` pattern was a literal word, so `Bash(npm run *)` approved only
 * `npm run *`. Asked only where an input allow rule has such a star, so sessions recorded before
 * (and those without one) record no marker and decide as they did.
 *
 * @since 2026-12-02, issue 25
 */
export const ALLOW_RULE_WILDCARDS_PATCH = 'allow-rule-wildcards';

/**
 * Claude Code's hook events beyond PreToolUse, PostToolUse, UserPromptSubmit and Stop: input
 * `hooks` with another event (SessionStart, PreCompact, Notification, …) is accepted (the events we
 * do not run listed as skipped) instead of failing the workflow. Asked with `patched()` only for
 * such an input, before anything runs: a session refused for one before replays its refusal.
 *
 * @since 2026-12-02, issue 25
 */
export const HOOK_EVENTS_PATCH = 'claude-code-hook-events';

/**
 * A call that failed (an `is_error` result) runs its PostToolUseFailure hooks, and no longer its
 * PostToolUse hooks (Claude Code's split). Asked with `patched()` at each failed call that has
 * PostToolUse or PostToolUseFailure hooks (turn/tool-hooks.ts): failed calls recorded before it
 * replay the PostToolUse hooks they ran.
 *
 * @since 2026-12-02, issue 25
 */
export const POST_TOOL_USE_FAILURE_PATCH = 'post-tool-use-failure';

/**
 * Input `maxBudgetUsd`: a session whose spend (its sub-agents' included) reached it stops at the
 * next turn boundary with `max_budget`, and a sub-agent starts with the budget its parent has
 * left (none left: the Agent call is answered with an error, no child is started). Asked only in
 * sessions with a budget, where it applies: sessions recorded before (none could have the field)
 * record no marker.
 *
 * @since 2026-12-02, issue 26
 */
export const MAX_BUDGET_PATCH = 'max-budget';

/**
 * Background commands (Bash `run_in_background`, TaskOutput, TaskStop): a call whose plan says
 * `background` starts a tool activity the turn does not wait for, tracked in workflow state
 * (session/background-commands.ts). Asked with `patched()` when such a call is carried out: plans
 * recorded before it refused `run_in_background` and never reach it.
 *
 * @since 2026-12-02, issue 26
 */
export const BACKGROUND_COMMANDS_PATCH = 'background-commands';

/**
 * A rate limit (429, or 529 with no fallback left) comes back from the model call as data and the
 * workflow waits it out with a durable timer (status `waiting_rate_limit`), with no attempt cap,
 * up to input `maxRateLimitWaitMs` (then reason `rate_limited`). Asked at every model call (the
 * call's input says whether it may hand a limit back): sessions recorded before it retried 429s as
 * activity attempts.
 * @since 2026-12-02, issue 26
 */
export const RATE_LIMIT_WAIT_PATCH = 'rate-limit-wait';

/**
 * A window learned from "prompt is too long: N tokens > M maximum" is kept as learned
 * (`learnedContextWindow`): the autocompact reserves scale with it (a quarter of it for output,
 * a tenth as buffer, as at most Claude Code's 20,000 and 13,000), so a small window compacts
 * when it is nearly full, not every turn, and a turn's max_tokens is at most a quarter of it.
 * Asked only when a model call is refused as too long:
 * sessions that never meet it record no marker.
 *
 * @since 2026-12-02, issue 26
 */
export const COMPACTION_FITS_PATCH = 'compaction-fits';

/**
 * Writing sub-agents (`Agent {isolation: "worktree"}`, or a type with `isolation: worktree`): the
 * child works in a worktree made from the parent's files, and what it changed is merged back
 * into the parent's workdir when it ends (turn/worktrees.ts). Asked when such a call is carried
 * out: plans recorded before it refused `isolation` and never reach it.
 *
 * @since 2026-12-02, issue 27
 */
export const WORKTREE_SUB_AGENTS_PATCH = 'worktree-sub-agents';

/**
 * Writing sub-agents that start together share one fork point: an Agent call with
 * `isolation: "worktree"` that starts in the same workflow activation as another's snapshot of
 * the parent's files forks from that snapshot instead of taking its own (six calls of one
 * response: one snapshot, not six racing over the same files). Asked when such a call forks.
 *
 * @since 2026-12-03, issue 27
 */
export const WORKTREE_SHARED_FORK_PATCH = 'worktree-shared-fork';
