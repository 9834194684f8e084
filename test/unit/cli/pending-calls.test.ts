import type { WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { Payload } from '@temporalio/common';
import { formatPendingCall, pendingCalls } from '../../../src/cli/pending-calls';

const converter = loadDataConverter({});
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
type Described = Pick<WorkflowExecutionDescription, 'raw'>;
const described = (details: (Payload | undefined)[]): Described => {
  const pendingActivities = details.map((detail) => ({ heartbeatDetails: detail ? { payloads: [detail] } : null }));
  return { raw: { pendingActivities } } as unknown as Described;
};

describe("what status shows of a session's pending calls", () => {
  test('the heartbeat details of tool, hook and MCP calls; anything else a heartbeat carried is left out', async () => {
    const bash = { tool: 'Bash', summary: 'Bash npm test -- --ci', elapsedMs: 12_250, lastLine: 'Tests: 41 passed' };
    const hook = { tool: 'Stop hook', summary: './check.sh', elapsedMs: 800 };
    const calls = await pendingCalls(
      converter,
      described([
        payload(bash),
        undefined,
        payload(null),
        payload({ tool: 5, summary: 'x', elapsedMs: 1 }),
        payload('text'),
        payload(hook),
      ]),
    );
    expect(calls).toEqual([bash, hook]);
  });

  test('a payload this client cannot decode is skipped, not an error', async () => {
    const encoding = new TextEncoder().encode('binary/encrypted');
    const encrypted: Payload = { metadata: { encoding }, data: new Uint8Array([1, 2, 3]) };
    expect(await pendingCalls(converter, described([encrypted]))).toEqual([]);
  });

  test('one line: summary, elapsed time, and the last line when there is one', () => {
    const bash = { tool: 'Bash', summary: 'Bash npm test', elapsedMs: 12_250, lastLine: 'Tests: 41 passed' };
    expect(formatPendingCall(bash)).toBe('Bash npm test · 12 s · Tests: 41 passed');
    const hook = { tool: 'Stop hook', summary: './check.sh', elapsedMs: 65_000 };
    expect(formatPendingCall(hook)).toBe('Stop hook: ./check.sh · 1 min 5 s');
  });
});
