/**
 * Big input: a long prompt reaches the model whole while history holds only its reference
 * (`durable-agent run` stores it; `store-prompt` does it for the Temporal CLI), and an inline
 * prompt over the limit fails its session at once with an error naming `promptRef`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { AgentResult } from '../../src/shared/contract';
import { MAX_INLINE_PROMPT_BYTES } from '../../src/shared/limits';
import { transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, reply, text } from '../support/fake-anthropic';
import { fileHarness, makeRepo, uniqueId } from '../support/harness';
import { scratchDir } from '../support/paths';

jest.setTimeout(120_000);

const harness = fileHarness();
const { EventType } = temporal.api.enums.v1;

/** A prompt of `bytes` bytes in words of 1,000 (one argument may not exceed 128 KB on Linux). */
function longPrompt(bytes: number): string[] {
  const words: string[] = [];
  for (let index = 0; words.length * 1001 < bytes; index++)
    words.push(`${String(index).padStart(6, '0')}${'p'.repeat(994)}`);
  return words;
}

async function historyOf(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  return (await harness.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

const payloadBytes = (payloads: temporal.api.common.v1.IPayloads | null | undefined) =>
  temporal.api.common.v1.Payloads.encode(payloads ?? {}).finish().length;

test('run stores a 300 KB prompt: the model gets it whole, the start event and every activity input stay small', async () => {
  harness.fake.handler = byTurn([reply([text('Read it all.')])]);
  const words = longPrompt(300 * 1024);
  const workflowId = uniqueId('big-prompt-run');
  const run = await harness.cli([
    'run',
    '--no-worker',
    '--workdir',
    makeRepo({}),
    '--workflow-id',
    workflowId,
    ...words,
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Result: completed after 1 turn(s)');

  const sent = JSON.stringify(harness.fake.requests.at(-1)!.body.messages);
  expect(sent).toContain(words[0]);
  expect(sent).toContain(words.at(-1));
  const events = await historyOf(workflowId);
  const started = events.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)!;
  const input = started.workflowExecutionStartedEventAttributes!.input;
  expect(payloadBytes(input)).toBeLessThan(16 * 1024);
  expect(JSON.parse(Buffer.from(input!.payloads![0]!.data!).toString())).toEqual(
    expect.objectContaining({ promptRef: expect.stringMatching(/^sha256:/) }),
  );
  for (const event of events) {
    expect(payloadBytes(event.activityTaskScheduledEventAttributes?.input)).toBeLessThan(16 * 1024);
  }
  // The transcript shows the prompt's beginning and its length.
  const { entries } = await harness.client.workflow.getHandle(workflowId).query(transcriptQuery);
  expect(entries[0]).toMatchObject({ type: 'user', text: expect.stringMatching(/^000000p+… \(\d+ chars\)$/) });
});

test('store-prompt gives a promptRef for sessions started otherwise; a reference the store lacks fails at once', async () => {
  harness.fake.handler = byTurn([reply([text('Done.')])]);
  const file = join(scratchDir('big-prompt'), 'prompt.md');
  writeFileSync(file, `\n${'Fix every typo in the notes. '.repeat(5_000)}\n`);
  const stored = await harness.cli(['store-prompt', file]);
  expect(stored.code).toBe(0);
  const promptRef = stored.stdout.trim();
  expect(promptRef).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(stored.stderr).toContain(`{"promptRef":"${promptRef}", …}`);

  const result = await harness.run({ promptRef, workdir: makeRepo({}) });
  expect(result).toMatchObject<Partial<AgentResult>>({ reason: 'completed' });
  expect(JSON.stringify(harness.fake.requests.at(-1)!.body.messages)).toContain(
    'Fix every typo in the notes. Fix every typo',
  );

  const missing = await harness.start({ promptRef: `sha256:${'0'.repeat(64)}`, workdir: makeRepo({}) });
  const failure = await missing.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(String((failure as WorkflowFailedError).cause?.cause)).toContain(
    `promptRef: sha256:${'0'.repeat(64)} is not in the store the workers use`,
  );
});

test('an inline prompt over the limit fails the session at once, naming promptRef, without a failed workflow task', async () => {
  const handle = await harness.start({ prompt: 'x'.repeat(MAX_INLINE_PROMPT_BYTES + 1), workdir: makeRepo({}) });
  const failure = await handle.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const message = String((failure as WorkflowFailedError).cause?.message);
  expect(message).toContain('prompt: 65 KB is over the 64 KB an inline prompt may have');
  expect(message).toContain('{"promptRef":"sha256:…"}');
  const events = await historyOf(handle.workflowId);
  expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toBe(false);
  expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(false);
});
