/**
 * The two store backends side by side in one run: the same session (model call + a one-line Edit
 * a turn, so every turn stores conversation content, journals an edit and snapshots the
 * workspace) on a worker with the file store and on one with the PostgreSQL store, a throwaway
 * local cluster (fsync off, loopback: what the store's queries cost, not a disk's). Interleaved
 * repetitions; medians.
 */
import { join } from 'node:path';
import { Harness, makeRepo } from '../../test/support/harness';
import { TEST_TMP } from '../../test/support/paths';
import { startThrowawayPostgres, stopThrowawayPostgres } from '../../test/support/postgres';
import { freePort } from '../../test/support/global-setup';
import { reply, text, toolUse, type FakeHandler } from '../../test/support/fake-anthropic';
import { median, round, type Row, timeSession } from './support';

const TURNS = 20;
const REPETITIONS = 3;

/** Turn n edits line n of the file it read first, then the model ends. */
function editEveryTurn(turns: number): FakeHandler {
  let requests = 0;
  return () => {
    requests++;
    if (requests === 1) return reply([toolUse('Read', { file_path: 'a.txt' })]);
    if (requests < turns)
      return reply([
        toolUse('Edit', {
          file_path: 'a.txt',
          old_string: `line ${requests - 1}\n`,
          new_string: `line ${requests - 1} edited\n`,
        }),
      ]);
    return reply([text('done')]);
  };
}

async function harnessOn(store: string | undefined): Promise<Harness> {
  const before = process.env.AGENT_TEST_STORE;
  if (store) process.env.AGENT_TEST_STORE = store;
  else delete process.env.AGENT_TEST_STORE;
  try {
    const harness = await Harness.start();
    await harness.startWorker();
    return harness;
  } finally {
    if (before === undefined) delete process.env.AGENT_TEST_STORE;
    else process.env.AGENT_TEST_STORE = before;
  }
}

export async function stores(): Promise<Row[]> {
  const port = await freePort();
  const postgres = startThrowawayPostgres(join(TEST_TMP, `bench-postgres-${port}`), port);
  if (!postgres)
    throw new Error('the stores benchmark needs PostgreSQL installed (Debian: apt-get install postgresql)');
  const file = await harnessOn(undefined);
  const database = await harnessOn(postgres.url);
  const samples = { file: [] as number[], postgres: [] as number[] };
  const repository = () =>
    makeRepo({ 'a.txt': Array.from({ length: TURNS }, (_, index) => `line ${index}\n`).join('') });
  try {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      samples.file.push(
        (await timeSession(file, editEveryTurn(TURNS), { prompt: 'edit', workdir: repository() })).ms / TURNS,
      );
      samples.postgres.push(
        (await timeSession(database, editEveryTurn(TURNS), { prompt: 'edit', workdir: repository() })).ms / TURNS,
      );
    }
  } finally {
    await file.stop();
    await database.stop();
    stopThrowawayPostgres(postgres);
  }
  const [onFile, onPostgres] = [median(samples.file), median(samples.postgres)];
  return [
    {
      figure: `Turn with the PostgreSQL store against the file store, same run (model call + a one-line Edit with its journal record and snapshot, ${TURNS} turns, a local throwaway cluster)`,
      value: `PostgreSQL ${round(onPostgres)} ms per turn vs file ${round(onFile)} ms (×${round(onPostgres / onFile, 2)}); medians of ${REPETITIONS} interleaved sessions (file: ${samples.file.map((value) => round(value)).join(', ')}; PostgreSQL: ${samples.postgres.map((value) => round(value)).join(', ')})`,
      command: 'npm run bench -- --only stores',
    },
  ];
}
