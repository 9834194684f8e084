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
