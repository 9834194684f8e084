/**
 * Temporal's own floor for the overhead benchmark: a bare workflow that does per turn what the
 * agent's loop minimally does, two activities (a model call and a tool call), here doing nothing.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface FloorActivities {
  callNothing(): Promise<void>;
  runNothing(): Promise<void>;
}

const { callNothing, runNothing } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export async function floorWorkflow(turns: number): Promise<number> {
  for (let turn = 0; turn < turns; turn++) {
    await callNothing();
    await runNothing();
  }
  return turns;
}
