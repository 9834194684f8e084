/**
 * The recorded path of `temporal workflow reset`: a session of four turns, reset to the workflow
 * task after turn 2 once it ended. Its last run (`reset-aware-workspace-last-run.json`) is the
 * reset run: the old history up to there, then the files put back (patched
 * `reset-aware-workspace:<run id>`) before turn 3's command runs again.
 */
import { randomUUID } from 'node:crypto';
import Long from 'long';
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

const echo = (n: number) => toolUse('Bash', { command: `echo ${n} >> log.txt` });

export const resetScenarios: Scenario[] = [
  {
    name: 'reset-aware-workspace',
    files: { 'notes.txt': 'one\n' },
    handler: byTurn([
      reply([toolUse('Read', { file_path: 'notes.txt' }), echo(1)]),
      reply([echo(2)]),
      reply([echo(3), toolUse('Edit', { file_path: 'notes.txt', old_string: 'one', new_string: 'two' })]),
      reply([text('Done.')]),
    ]),
    after: async (handle, harness) => {
      const events = (await handle.fetchHistory()).events ?? [];
      const modelCalls = events.filter(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      const response = await harness.client.workflowService.resetWorkflowExecution({
        namespace: 'default',
        workflowExecution: { workflowId: handle.workflowId },
        reason: 'recording: reset to the workflow task after turn 2',
        workflowTaskFinishEventId: Long.fromValue(
          modelCalls[2]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!,
        ),
        requestId: randomUUID(),
      });
      await harness.client.workflow.getHandle(handle.workflowId, (response as { runId: string }).runId).result();
    },
  },
];
