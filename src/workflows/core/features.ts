/**
 * The driver's feature switches: `patched()` markers read once per run (agent-workflow.ts), so
 * sessions recorded before a feature replay the behaviour they were recorded with.
 */
/** Behaviour that sessions recorded before it existed replay without (see `patched()` in the driver). */
export interface Features {
  recoveryLayers: boolean;
  steering: boolean;
  /**
   * Issue 9's fixes: cancellation ends with a result, every path continues as new at the
   * boundary, a failed context step degrades, a stop-hook block keeps the reactive-compaction
   * budget, a batch waits for every call's outcome, the real context window is learned.
   */
  hardening: boolean;
  /** Issue 11: snapshots after turns that change files, checkpoints, rewind, fork and diff. */
  durableWorkspace: boolean;
  /**
   * Issue 15: a stop hook that keeps blocking ends the run with `stop_hook_limit`; `hook_stopped`
   * is left to its reference meaning (a hook's `continue: false` after tools).
   */
  stopHookLimit: boolean;
}

/**
 * Issue 22: a sub-agent's tools are those of its type that its parent has (`Task` only when both
 * allow it); what its type asked for beyond them is left out and noted in both transcripts.
 * Unlike the switches above, asked with `patched()` at each sub-agent's start (sub-agents.ts): a
 * session already running when this shipped bounds its next sub-agents too, while the starts in
 * its history carry no marker and replay with the tools they were started with.
 *
 * Temporal's patching steps: `patched` now; `deprecatePatch` once no run started before it can
 * still replay (the parent's histories from before the bound are gone); then the branch removed.
 */
export const SUB_AGENT_BOUNDS_PATCH = 'sub-agent-bounds';

/**
 * Issue 22: a session's changes (the result's `filesChanged`, a `repo` session's branch) are
 * counted from the snapshot it started from even after a rewind to turn 0 that kept the files
 * made those turn 0's (`TurnLog.start`). Asked with `patched()` only when that happened, as the
 * session ends: sessions that ended before it replay comparing `snapshots[0]`, as they did.
 */
export const SESSION_START_PATCH = 'session-start-snapshot';

/**
 * Issue 23: a rewind puts back the read-state of its turn (checkpoints keep it, see
 * read-state.ts), so an Edit of a file the model read before the turn works after it. Asked with
 * `patched()` only when a rewind is carried out: sessions rewound before it replay the old
 * behaviour (every read forgotten when the files were put back, all kept when they were not).
 */
export const READ_STATE_PATCH = 'read-state-in-checkpoints';

/**
 * Issue 23: a signal whose input does not parse (message-inputs.ts) is dropped with a warning and
 * a transcript note. Before, some were acted on anyway (`interrupt` with any input, `approveTool`
 * with a number for feedback, `subAgentApprovals` with fields missing): asked with `patched()` at
 * each malformed signal, so histories recorded before replay what those signals did then.
 */
export const MALFORMED_SIGNALS_PATCH = 'malformed-signals-dropped';

/**
 * Issue 23: an inline prompt over MAX_INLINE_PROMPT_BYTES fails the session at once, naming
 * `promptRef`. Asked with `patched()` only for such a prompt: a session that started with one
 * before the limit replays without the marker and goes on as it was recorded.
 */
export const INLINE_PROMPT_LIMIT_PATCH = 'inline-prompt-limit';

/**
 * Issue 23: a call to a stdio MCP server (which runs in the workdir) snapshots the workspace when
 * it is done, so what the server wrote is in the turn's snapshot, `filesChanged` and `diff`.
 * Asked with `patched()` at each such call (mcp-tools.ts): calls recorded before it replay
 * without a snapshot, as they ran.
 */
export const MCP_CALL_SNAPSHOT_PATCH = 'mcp-call-snapshot';

/**
 * Issue 23: a tool batch of one call that labels itself (a Read, Glob or Grep that succeeded;
 * `ToolRules.labelsItself`) gets the call's own summary as its tool summary, without the
 * small-model activity: no activity, and no workflow task for its answer, in such turns. Asked
 * with `patched()` at each such batch (tool-turn.ts): batches recorded before it replay the
 * `summarizeToolBatch` they scheduled.
 */
export const SELF_LABELLED_BATCH_PATCH = 'self-labelled-tool-batch';

/**
 * Issue 23: the transcript is stored as it grows, a node per step (shared/transcript-chain.ts):
 * each model call carries the entries added since the last node, and the session's close only
 * the last ones, instead of the run's whole transcript and snapshots. The chain goes on across
 * continue-as-new. Asked with `patched()` at a run's first model call (or its close, or its
 * continue-as-new): runs recorded before it replay without the marker and close as they did.
 */
export const TRANSCRIPT_BY_REFERENCE_PATCH = 'transcript-by-reference';

/**
 * Issue 23: a run made by `temporal workflow reset` puts the files back to the latest snapshot its
 * history knows before its first tool, hook or rewind (reset.ts). Asked with `patched()` only in
 * such a run and only where that run's files were not yet put back, so the replayed part of a
 * reset run (the original run's events, recorded without the marker) replays as it ran. The id
 * asked is this constant and the run the files were last put in line under (`:<run id>`, `:none`
 * when unknown): a reset of a reset run replays the first run's put-back and does its own.
 */
export const RESET_AWARE_WORKSPACE_PATCH = 'reset-aware-workspace';
