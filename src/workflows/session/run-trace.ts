/**
 * The end of a run, told to the worker's tracing (src/telemetry/tracing.ts) through a sink: the
 * run's span is made there, outside the sandbox. A sink makes no command, so this changes neither
 * what a session does nor how its history replays.
 */
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { AgentSinks, RunEnded } from '../../shared/sinks';

const { tracing } = proxySinks<AgentSinks>();

export function reportRunEnded(outcome: RunEnded['outcome'], turns: number, reason?: string): void {
  const info = workflowInfo();
  tracing.runEnded({
    workflowId: info.workflowId,
    runId: info.runId,
    workflowType: info.workflowType,
    startTime: info.runStartTime.getTime(),
    endTime: Date.now(),
    outcome,
    turns,
    ...(reason ? { reason } : {}),
  });
}
