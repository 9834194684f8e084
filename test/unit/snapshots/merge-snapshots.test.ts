/**
 * The three-way merge of a child's snapshot into its parent's, on real files and a real content
 * store: what applies, what conflicts (the parent's lines kept), and exact bytes throughout.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { applyChanges } from '../../../src/snapshots/apply-changes';
import { mergeSnapshots, mergeText } from '../../../src/snapshots/merge-snapshots';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { diffTrees } from '../../../src/snapshots/tree';
import { Workdir } from '../../../src/workdir/workdir';
import { workspace, type Workspace } from './fixture';

const lines = (count: number, prefix = 'line') =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}\n`);

let ws: Workspace;
let base: string;

beforeEach(async () => {
  ws = workspace('merge');
  ws.write('a.txt', lines(10).join(''));
  ws.write('b.txt', 'b\n');
  ws.write('c.txt', 'c\n');
  base = (await takeSnapshot(ws.store, ws.workdir)).ref;
});

/** The workdir's snapshot after `change` (made on the files at base), then the files put back at base. */
async function sideOf(change: () => void): Promise<string> {
  change();
  const ref = (await takeSnapshot(ws.store, ws.workdir, base)).ref;
  await putAt(ref, base);
  return ref;
}

/** The workdir (now at `fromRef`) brought to `toRef`. */
async function putAt(fromRef: string, toRef: string): Promise<void> {
  const changes = await diffTrees(ws.store, fromRef, toRef);
  await Workdir.using(ws.workdir, (workdir) => applyChanges(ws.store, workdir, changes));
}

/** Merges theirs into ours, and applies the plan to the workdir holding ours: the plan and the files after. */
async function merged(oursRef: string, theirsRef: string) {
  const plan = await mergeSnapshots(ws.store, { baseRef: base, oursRef, theirsRef });
  await putAt(base, oursRef);
  await Workdir.using(ws.workdir, (workdir) => applyChanges(ws.store, workdir, plan.changes));
  return { plan, files: ws.listing() };
}

test('disjoint files: both sides kept', async () => {
  const ours = await sideOf(() => ws.write('b.txt', 'B ours\n'));
  const theirs = await sideOf(() => {
    ws.write('c.txt', 'C theirs\n');
    ws.write('new/d.txt', 'd\n');
    rmSync(join(ws.workdir, 'a.txt'));
  });
  const { plan, files } = await merged(ours, theirs);
  expect(plan.merged).toEqual(['a.txt', 'c.txt', 'new/d.txt']);
  expect(plan.conflicts).toEqual([]);
  expect(files).toEqual({ 'b.txt': 'B ours\n', 'c.txt': 'C theirs\n', 'new/d.txt': 'd\n' });
});

test('one file, hunks apart: a clean merge of both', async () => {
  const ours = await sideOf(() => ws.write('a.txt', lines(10).join('').replace('line 2\n', 'line 2 ours\n')));
  const theirs = await sideOf(() => ws.write('a.txt', lines(10).join('').replace('line 8\n', 'line 8 theirs\n')));
  const { plan, files } = await merged(ours, theirs);
  expect(plan.conflicts).toEqual([]);
  expect(plan.merged).toEqual(['a.txt']);
  expect(files['a.txt']).toBe(
    lines(10).join('').replace('line 2\n', 'line 2 ours\n').replace('line 8\n', 'line 8 theirs\n'),
  );
});

test('the same line changed on both sides: a conflict, the parent line kept, the hunk reported', async () => {
  const text = lines(10).join('');
  // Theirs also adds a line at the top (clean, taken): the hunk's line is the one in the merged file.
  const ours = await sideOf(() => ws.write('a.txt', text.replace('line 5\n', 'line 5 ours\n')));
  const theirs = await sideOf(() => ws.write('a.txt', `header\n${text}`.replace('line 5\n', 'line 5 theirs\nextra\n')));
  const { plan, files } = await merged(ours, theirs);
  expect(plan.conflicts).toEqual([
    {
      path: 'a.txt',
      why: 'both_changed',
      hunks: [{ line: 6, base: ['line 5'], ours: ['line 5 ours'], theirs: ['line 5 theirs', 'extra'] }],
    },
  ]);
  expect(files['a.txt']).toBe(`header\n${text}`.replace('line 5\n', 'line 5 ours\n'));
  expect(plan.merged).toEqual(['a.txt']);
});

test('a conflict alone changes nothing in the parent', async () => {
  const ours = await sideOf(() => ws.write('b.txt', 'ours\n'));
  const theirs = await sideOf(() => ws.write('b.txt', 'theirs\n'));
  const { plan, files } = await merged(ours, theirs);
  expect(plan.changes).toEqual([]);
  expect(plan.conflicts).toEqual([
    { path: 'b.txt', why: 'both_changed', hunks: [{ line: 1, base: ['b'], ours: ['ours'], theirs: ['theirs'] }] },
  ]);
  expect(files['b.txt']).toBe('ours\n');
});

test('the same file added with the same content on both sides: nothing to do', async () => {
  const ours = await sideOf(() => ws.write('same.txt', 'same\n'));
  const theirs = await sideOf(() => ws.write('same.txt', 'same\n'));
  const { plan, files } = await merged(ours, theirs);
  expect(plan).toEqual({ changes: [], merged: [], conflicts: [] });
  expect(files['same.txt']).toBe('same\n');
});

test('the same change on both sides, and the same file added differently', async () => {
  const ours = await sideOf(() => {
    ws.write('b.txt', 'B\n');
    ws.write('new.txt', 'ours\n');
  });
  const theirs = await sideOf(() => {
    ws.write('b.txt', 'B\n');
    ws.write('new.txt', 'theirs\n');
  });
  const { plan, files } = await merged(ours, theirs);
  expect(plan.conflicts).toEqual([
    { path: 'new.txt', why: 'both_changed', hunks: [{ line: 1, base: [], ours: ['ours'], theirs: ['theirs'] }] },
  ]);
  expect(files).toMatchObject({ 'b.txt': 'B\n', 'new.txt': 'ours\n' });
});

test('deleted on one side, changed on the other: a conflict either way, the parent as it is', async () => {
  const ours = await sideOf(() => {
    rmSync(join(ws.workdir, 'b.txt'));
    ws.write('c.txt', 'C ours\n');
  });
  const theirs = await sideOf(() => {
    ws.write('b.txt', 'B theirs\n');
    rmSync(join(ws.workdir, 'c.txt'));
  });
  const { plan, files } = await merged(ours, theirs);
  expect(plan.changes).toEqual([]);
  expect(plan.conflicts).toEqual([
    { path: 'b.txt', why: 'changed_and_deleted', hunks: [] },
    { path: 'c.txt', why: 'changed_and_deleted', hunks: [] },
  ]);
  expect(files['b.txt']).toBeUndefined();
  expect(files['c.txt']).toBe('C ours\n');
});

test('binary files and symlinks both changed: not_text conflicts; changed on one side only: taken', async () => {
  ws.write('image.bin', Buffer.from([0, 1, 2, 3]));
  ws.link('link', 'a.txt');
  base = (await takeSnapshot(ws.store, ws.workdir)).ref;
  const ours = await sideOf(() => {
    ws.write('image.bin', Buffer.from([0, 9, 9]));
    rmSync(join(ws.workdir, 'link'));
    ws.link('link', 'b.txt');
  });
  const theirs = await sideOf(() => {
    ws.write('image.bin', Buffer.from([0, 7, 7]));
    rmSync(join(ws.workdir, 'link'));
    ws.link('link', 'c.txt');
    ws.write('other.bin', Buffer.from([0, 1]));
  });
  const { plan, files } = await merged(ours, theirs);
  expect(plan.conflicts).toEqual([
    { path: 'image.bin', why: 'not_text', hunks: [] },
    { path: 'link', why: 'not_text', hunks: [] },
  ]);
  expect(plan.merged).toEqual(['other.bin']);
  expect(files['link']).toBe('-> b.txt');
});

test('a file without a final newline stays without one, and line ends stay as they are', async () => {
  ws.write('d.txt', 'one\r\ntwo\r\nthree\r\nfour\r\nlast');
  base = (await takeSnapshot(ws.store, ws.workdir)).ref;
  const ours = await sideOf(() => ws.write('d.txt', 'ONE\r\ntwo\r\nthree\r\nfour\r\nlast'));
  const theirs = await sideOf(() => ws.write('d.txt', 'one\r\ntwo\r\nthree\r\nfour\r\nLAST'));
  const { plan, files } = await merged(ours, theirs);
  expect(plan.conflicts).toEqual([]);
  expect(files['d.txt']).toBe('ONE\r\ntwo\r\nthree\r\nfour\r\nLAST');
});

test('the executable bit merges like content', async () => {
  ws.write('run.sh', 'echo 1\necho 2\necho 3\necho 4\n');
  base = (await takeSnapshot(ws.store, ws.workdir)).ref;
  const ours = await sideOf(() => ws.write('run.sh', 'echo ONE\necho 2\necho 3\necho 4\n'));
  const theirs = await sideOf(() => ws.write('run.sh', 'echo 1\necho 2\necho 3\necho FOUR\n', { executable: true }));
  const { files } = await merged(ours, theirs);
  expect(files['run.sh']).toBe('echo ONE\necho 2\necho 3\necho FOUR\n (x)');
});

describe('mergeText', () => {
  test('a line appended after a last line without newline, and a change far above', () => {
    const base = 'a\nb\nc\nd\ne';
    expect(mergeText(base, 'A\nb\nc\nd\ne', 'a\nb\nc\nd\ne\nf')).toEqual({ text: 'A\nb\nc\nd\ne\nf', hunks: [] });
  });

  test('empty sides', () => {
    expect(mergeText('', '', 'new\n')).toEqual({ text: 'new\n', hunks: [] });
    expect(mergeText('x\n', 'x\n', '')).toEqual({ text: '', hunks: [] });
  });

  test('a conflict among shared lines at both ends reports its line in the merged file', () => {
    const base = lines(20).join('');
    const ours = base.replace('line 1\n', 'first\n').replace('line 12\n', 'twelve ours\n');
    const theirs = base.replace('line 12\n', 'twelve theirs\n').replace('line 20\n', 'last\n');
    const { text, hunks } = mergeText(base, ours, theirs);
    expect(text).toBe(ours.replace('line 20\n', 'last\n'));
    expect(hunks).toEqual([{ line: 12, base: ['line 12'], ours: ['twelve ours'], theirs: ['twelve theirs'] }]);
  });
});

describe('mergeText, line by line', () => {
  const numbered = (count: number) => Array.from({ length: count }, (_, index) => `${index + 1}\n`);

  test('a hunk of theirs spanning two of ours is one conflict: ours kept, each side whole', () => {
    const base = numbered(10);
    const ours = base.map((line) => (line === '3\n' ? 'three\n' : line === '5\n' ? 'five\n' : line));
    const theirs = [...base.slice(0, 2), 'replaced\n', ...base.slice(5)];
    const { text, hunks } = mergeText(base.join(''), ours.join(''), theirs.join(''));
    expect(text).toBe(ours.join(''));
    expect(hunks).toEqual([{ line: 3, base: ['3', '4', '5'], ours: ['three', '4', 'five'], theirs: ['replaced'] }]);
  });

  test('the same lines deleted on both sides, and a deletion beside an edit far away', () => {
    const base = numbered(12).join('');
    const ours = base.replace('4\n5\n', '').replace('10\n', 'ten\n');
    const theirs = base.replace('4\n5\n', '').replace('1\n', 'one\n');
    expect(mergeText(base, ours, theirs)).toEqual({ text: ours.replace('1\n', 'one\n'), hunks: [] });
  });

  test('edits apart on each side, whatever they are (replaced, deleted, inserted), all apply', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const base = Array.from({ length: 120 }, (_, index) => (index % 4 === 0 ? '\n' : `line ${index}\n`));
      const ours = [...base] as (string | undefined)[];
      const theirs = [...base] as (string | undefined)[];
      const expected = [...base] as (string | undefined)[];
      // Blocks of four lines, each edited by one side or none; an untouched line between edited blocks.
      for (let block = 0; block < 30; block += 2) {
        const side = random() < 0.5 ? ours : theirs;
        const at = block * 4 + Math.floor(random() * 3);
        const kind = random();
        const edit = kind < 0.33 ? `edited ${at}\n` : kind < 0.66 ? undefined : `inserted\n${base[at]}`;
        side[at] = edit;
        expected[at] = edit;
      }
      const join = (lines: (string | undefined)[]) => lines.filter((line) => line !== undefined).join('');
      expect(mergeText(base.join(''), join(ours), join(theirs))).toEqual({ text: join(expected), hunks: [] });
    }
  });

  test('a long file of repeated lines merges quickly', () => {
    const base = Array.from({ length: 40_000 }, (_, index) =>
      index % 3 === 0 ? '\n' : index % 3 === 1 ? '  }\n' : `line ${index}\n`,
    );
    const ours = [...base];
    const theirs = [...base];
    for (let index = 5; index < base.length; index += 97) ours[index] = `ours ${index}\n`;
    for (let index = 50; index < base.length; index += 101) theirs[index] = `theirs ${index}\n`;
    const started = Date.now();
    const { hunks } = mergeText(base.join(''), ours.join(''), theirs.join(''));
    expect(Date.now() - started).toBeLessThan(3000);
    // Edits on the same line or next to each other conflict; all others merge.
    for (const hunk of hunks) expect(hunk.ours.some((line) => line.startsWith('ours'))).toBe(true);
  });
});
