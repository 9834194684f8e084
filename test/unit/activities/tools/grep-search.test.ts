/**
 * Grep's search thread, given descriptors: entries as ripgrep prints them, files it skips, the
 * limit that stops the walk, cancellation, and descriptors closed once used. The deadline on a
 * catastrophic pattern is in confinement.test.ts.
 */
import { fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { GrepSearch, type GrepJob } from '../../../../src/activities/tools/grep-search';
import { toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('grep-search');
});

const job = (overrides: Partial<GrepJob> = {}): GrepJob => ({
  pattern: 'needle',
  ignoreCase: false,
  mode: 'content',
  lineNumbers: true,
  before: 0,
  after: 0,
  multiline: false,
  maxEntries: 100,
  maxFileBytes: 1_000_000,
  maxLineChars: 500,
  ...overrides,
});

const file = (name: string, content: string | Buffer) => {
  repo.write(name, content);
  return { fd: openSync(join(repo.path, name), 'r'), shown: name };
};

/** Runs one search over the given files and always ends it. */
async function searchAll(
  settings: GrepJob,
  files: { fd: number; shown: string }[],
  signal = new AbortController().signal,
) {
  const search = new GrepSearch(settings, signal);
  try {
    for (const each of files) await search.add(each);
    return await search.finish();
  } finally {
    await search.close();
  }
}

test('entries in the order the files came, as ripgrep prints them in each mode', async () => {
  const files = () => [file('a.txt', 'hay\nneedle one\nhay\n'), file('b.txt', 'needle two\nNEEDLE three\n')];
  expect(await searchAll(job(), files())).toEqual(['a.txt:2:needle one', 'b.txt:1:needle two']);
  expect(await searchAll(job({ ignoreCase: true, mode: 'count' }), files())).toEqual(['a.txt:1', 'b.txt:2']);
  expect(await searchAll(job({ mode: 'files_with_matches' }), files())).toEqual(['a.txt', 'b.txt']);
  expect(await searchAll(job({ lineNumbers: false }), files())).toEqual(['a.txt:needle one', 'b.txt:needle two']);
});

test('binary files and files over the size limit are skipped', async () => {
  const files = [
    file('binary.dat', Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(3)])),
    file('big.txt', `needle\n${'x'.repeat(200)}`),
    file('small.txt', 'needle\n'),
  ];
  expect(await searchAll(job({ maxFileBytes: 100 }), files)).toEqual(['small.txt:1:needle']);
});

test('descriptors are closed once the search is done with them', async () => {
  const files = [file('a.txt', 'needle\n'), file('b.txt', 'hay\n')];
  await searchAll(job(), files);
  for (const { fd } of files) expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: 'EBADF' }));
});

test('once a batch fills the limit, add says so, and the walk can stop there', async () => {
  const search = new GrepSearch(job({ mode: 'files_with_matches', maxEntries: 3 }), new AbortController().signal);
  let added = 0;
  try {
    for (let index = 0; index < 100; index++) {
      added++;
      if (!(await search.add(file(`f${index}.txt`, 'needle\n')))) break;
    }
    expect(added).toBe(64); // one batch
    expect(await search.finish()).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
  } finally {
    await search.close();
  }
});

test('a search whose call is already cancelled ends with an error saying so', async () => {
  const cancelled = new AbortController();
  cancelled.abort();
  await expect(searchAll(job(), [file('a.txt', 'needle\n')], cancelled.signal)).rejects.toThrow(
    'The search was cancelled.',
  );
});
