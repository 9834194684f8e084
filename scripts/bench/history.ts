/** History bytes per turn at contexts of ~10K, 50K and 150K tokens. */
import { type Harness, makeRepo } from '../../test/support/harness';
import { readEveryTurn, type Row, timeSession } from './support';

/** 3. History bytes per turn at contexts of ~10K, 50K and 150K tokens. */
export async function history(harness: Harness): Promise<Row[]> {
  const values: string[] = [];
  for (const tokens of [10_000, 50_000, 150_000]) {
    const prompt = `Context to carry: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil((tokens * 4) / 27))}`.slice(0, tokens * 4);
    const short = await timeSession(harness, readEveryTurn(6), { prompt, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    const long = await timeSession(harness, readEveryTurn(16), { prompt, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    values.push(`${tokens / 1000}K tokens: ${Math.round((long.historyBytes - short.historyBytes) / 10)} B/turn`);
  }
  return [
    {
      figure: 'History bytes per turn (model call + one Read) at a context of about 10K, 50K and 150K tokens',
      value: `${values.join('; ')} (difference between 16- and 6-turn sessions, divided by 10)`,
      command: 'npm run bench -- --only history',
    },
  ];
}

