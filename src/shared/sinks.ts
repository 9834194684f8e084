/**
 * What the workflow tells the worker through sinks: calls that leave the sandbox after an
 * activation and make no command, so they cannot change what a session does or how it replays
 * (and they are not made again during replay).
 */
import type { Sinks } from '@temporalio/workflow';

/** A run of a session that ended (its result, or a continue-as-new): what its tracing span says. */
export interface RunEnded {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** Epoch milliseconds, by the workflow's clock. */
  startTime: number;
  endTime: number;
  outcome: 'completed' | 'continued_as_new';
  /** A completed session's terminal reason. */
  reason?: string;
  turns: number;
}

export interface AgentSinks extends Sinks {
  tracing: {
    runEnded(run: RunEnded): void;
  };
}
