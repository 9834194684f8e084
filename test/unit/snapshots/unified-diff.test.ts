import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { diffStat, formatDiffStat, unifiedDiff } from '../../../src/snapshots/unified-diff';
import { workspace, type Workspace } from './fixture';

let ws: Workspace;
let from: string;
let to: string;

beforeAll(async () => {
  ws = workspace('diff');
  ws.write('a.txt', 'one\ntwo\nthree\n');
  ws.write('gone.txt', 'bye\n');
  ws.write('bin.dat', Buffer.from([1, 0, 2]));
  ws.link('link', 'a.txt');
  ws.write('mode.sh', '#!/bin/sh\n');
  ws.write('swap', 'a file, then a link\n');
  from = (await takeSnapshot(ws.store, ws.workdir, undefined, { maxFileBytes: 100 })).ref;
  ws.write('a.txt', 'one\n2\nthree\nfour\n');
  ws.write('new.txt', 'hello\n');
  ws.write('bin.dat', Buffer.from([1, 0, 3, 4]));
  rmSync(join(ws.workdir, 'link'));
  ws.link('link', 'new.txt');
  chmodSync(join(ws.workdir, 'mode.sh'), 0o755);
  rmSync(join(ws.workdir, 'gone.txt'));
  ws.write('big.bin', 'x'.repeat(101));
  rmSync(join(ws.workdir, 'swap'));
  ws.link('swap', 'a.txt');
  to = (await takeSnapshot(ws.store, ws.workdir, from, { maxFileBytes: 100 })).ref;
});

test('a git-style unified diff: hunks, modes, links, binary and big files', async () => {
  expect(await unifiedDiff(ws.store, from, to)).toBe(
    [
      'diff --git a/a.txt b/a.txt',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,4 @@',
      ' one',
      '-two',
      '+2',
      ' three',
      '+four',
      'diff --git a/big.bin b/big.bin',
      'new file mode 100644',
      'File over the snapshot size limit; content not recorded',
      'diff --git a/bin.dat b/bin.dat',
      'Binary files differ',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1,1 +0,0 @@',
      '-bye',
      'diff --git a/link b/link',
      '--- a/link',
      '+++ b/link',
      '@@ -1,1 +1,1 @@',
      '-a.txt',
      '\\ No newline at end of file',
      '+new.txt',
      '\\ No newline at end of file',
      'diff --git a/mode.sh b/mode.sh',
      'old mode 100644',
      'new mode 100755',
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1,1 @@',
      '+hello',
      'diff --git a/swap b/swap',
      'deleted file mode 100644',
      '--- a/swap',
      '+++ /dev/null',
      '@@ -1,1 +0,0 @@',
      '-a file, then a link',
      'diff --git a/swap b/swap',
      'new file mode 120000',
      '--- /dev/null',
      '+++ b/swap',
      '@@ -0,0 +1,1 @@',
      '+a.txt',
      '\\ No newline at end of file',
      '',
    ].join('\n'),
  );
});

test('only the paths asked for; nothing for identical snapshots', async () => {
  expect(await unifiedDiff(ws.store, from, to, { paths: ['new.txt', 'mode.sh/'] })).toBe(
    'diff --git a/mode.sh b/mode.sh\nold mode 100644\nnew mode 100755\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n',
  );
  expect(await unifiedDiff(ws.store, to, to)).toBe('');
});

test('cut at maxBytes on a line boundary, saying how many files were not shown', async () => {
  const firstFile =
    'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n';
  expect(await unifiedDiff(ws.store, from, to, { maxBytes: 120 })).toBe(
    `${firstFile}… diff truncated at 120 bytes: 7 of 8 files not shown\n`,
  );
  expect(await unifiedDiff(ws.store, from, to, { maxBytes: 160 })).toBe(
    `${firstFile}diff --git a/big.bin b/big.bin\nnew file mode 100644\n… diff truncated at 160 bytes: 7 of 8 files not shown in full\n`,
  );
  expect(await unifiedDiff(ws.store, from, to, { maxBytes: 10_000 })).toBe(await unifiedDiff(ws.store, from, to));
});

test('diffStat counts lines; binary and big files count none', async () => {
  expect(await diffStat(ws.store, from, to)).toEqual([
    { path: 'a.txt', change: 'modified', linesAdded: 2, linesRemoved: 1 },
    { path: 'big.bin', change: 'added', linesAdded: 0, linesRemoved: 0, binary: true },
    { path: 'bin.dat', change: 'modified', linesAdded: 0, linesRemoved: 0, binary: true },
    { path: 'gone.txt', change: 'deleted', linesAdded: 0, linesRemoved: 1 },
    { path: 'link', change: 'modified', linesAdded: 1, linesRemoved: 1 },
    { path: 'mode.sh', change: 'modified', linesAdded: 0, linesRemoved: 0 },
    { path: 'new.txt', change: 'added', linesAdded: 1, linesRemoved: 0 },
    { path: 'swap', change: 'modified', linesAdded: 1, linesRemoved: 1 },
  ]);
});

describe('formatDiffStat', () => {
  test("like git's --stat", async () => {
    expect(formatDiffStat(await diffStat(ws.store, from, to))).toBe(
      [
        ' a.txt    |   3 ++-',
        ' big.bin  | Bin',
        ' bin.dat  | Bin',
        ' gone.txt |   1 -',
        ' link     |   2 +-',
        ' mode.sh  |   0',
        ' new.txt  |   1 +',
        ' swap     |   2 +-',
        ' 8 files changed, 5 insertions(+), 4 deletions(-)',
      ].join('\n'),
    );
  });

  test('big changes are scaled down; singular wording; a zero side is left out', () => {
    expect(formatDiffStat([{ path: 'huge.ts', change: 'modified', linesAdded: 200, linesRemoved: 100 }])).toBe(
      ` huge.ts | 300 ${'+'.repeat(33)}${'-'.repeat(17)}\n 1 file changed, 200 insertions(+), 100 deletions(-)`,
    );
    expect(formatDiffStat([{ path: 'a', change: 'added', linesAdded: 1, linesRemoved: 0 }])).toBe(
      ' a | 1 +\n 1 file changed, 1 insertion(+)',
    );
    expect(formatDiffStat([{ path: 'a', change: 'deleted', linesAdded: 0, linesRemoved: 2 }])).toBe(
      ' a | 2 --\n 1 file changed, 2 deletions(-)',
    );
    expect(formatDiffStat([{ path: 'x.png', change: 'added', linesAdded: 0, linesRemoved: 0, binary: true }])).toBe(
      ' x.png | Bin\n 1 file changed, 0 insertions(+), 0 deletions(-)',
    );
    expect(formatDiffStat([])).toBe('');
  });
});
