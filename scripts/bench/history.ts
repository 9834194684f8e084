/** History bytes per turn at contexts of ~10K, 50K and 150K tokens, and the largest activity input of a long session. */
import { type Harness, makeRepo } from '../../test/support/harness';
import { activityInputSizes } from '../../test/support/history';
import { readEveryTurn, type Row, timeSession } from './support';

/** 3. History bytes per turn at contexts of ~10K, 50K and 150K tokens. */
export async function history(harness: Harness): Promise<Row[]> {
  const values: string[] = [];
  for (const tokens of [10_000, 50_000, 150_000]) {
    const prompt = `Context to carry: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil((tokens * 4) / 27))}`.slice(
      0,
      tokens * 4,
    );
    // Stored, as `durable-agent run` does: an inline prompt may not be over 64 KB.
    const promptRef = await harness.store.content.put(prompt);
    const short = await timeSession(harness, readEveryTurn(6), { promptRef, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    const long = await timeSession(harness, readEveryTurn(16), { promptRef, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    values.push(`${tokens / 1000}K tokens: ${Math.round((long.historyBytes - short.historyBytes) / 10)} B/turn`);
  }
  return [
    {
      figure: 'History bytes per turn (model call + one Read) at a context of about 10K, 50K and 150K tokens',
      value: `${values.join('; ')} (difference between 16- and 6-turn sessions, divided by 10)`,
      command: 'npm run bench -- --only history',
    },
    await largestActivityInput(harness),
  ];
}

/** No activity input grows with the session: the largest after 300 turns, and what closing the session took after 30 and 300. */
async function largestActivityInput(harness: Harness): Promise<Row> {
  const sizes = async (turns: number) => {
    harness.fake.handler = readEveryTurn(turns);
    const handle = await harness.start({
      prompt: 'read a.txt again and again',
      workdir: makeRepo({ 'a.txt': 'a\n' }),
      toolSummaries: false,
    });
    await handle.result();
    return activityInputSizes(harness.client, handle.workflowId, handle.firstExecutionRunId);
  };
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const closing = (inputs: { type: string; bytes: number }[]) =>
    inputs.find((input) => input.type === 'closeSession')?.bytes ?? 0;
  const short = await sizes(30);
  const long = await sizes(300);
  const largest = long.reduce((top, input) => (input.bytes > top.bytes ? input : top));
  return {
    figure:
      'Largest activity input after 300 turns (model call + one Read), and the closeSession input after 30 and 300 turns',
    value: `${kb(largest.bytes)} (${largest.type}); closeSession ${kb(closing(short))} after 30 turns, ${kb(closing(long))} after 300`,
    command: 'npm run bench -- --only history',
  };
}
