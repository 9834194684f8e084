import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describeChanges } from '../../../src/snapshots/changes';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { compareSnapshots, flattenSnapshot } from '../../../src/snapshots/tree';
import type { FileChange } from '../../../src/shared/workspace';
import { workspace } from './fixture';

describe('describeChanges', () => {
  test('one line: created, modified, deleted, in the order given', () => {
    expect(
      describeChanges([
        { path: 'src/a.ts', change: 'added' },
        { path: 'src/b.ts', change: 'modified' },
        { path: 'c.txt', change: 'deleted' },
      ]),
    ).toBe('created src/a.ts, modified src/b.ts, deleted c.txt');
    expect(describeChanges([])).toBe('');
  });

  test('beyond the limit, a count of the rest', () => {
    const changes: FileChange[] = Array.from({ length: 5 }, (_, index) => ({ path: `f${index}`, change: 'modified' }));
    expect(describeChanges(changes, 2)).toBe('modified f0, modified f1, … and 3 more');
    expect(describeChanges(changes, 5)).toBe('modified f0, modified f1, modified f2, modified f3, modified f4');
    expect(describeChanges(changes, 0)).toBe('5 files changed');
    expect(
      describeChanges(Array.from({ length: 52 }, (_, index) => ({ path: `f${index}`, change: 'added' }))).endsWith(
        'created f49, … and 2 more',
      ),
    ).toBe(true);
  });
});

describe('compareSnapshots', () => {
  test('mode, link target, file↔symlink and file↔directory swaps; identical content with new stat is no change', async () => {
    const ws = workspace('compare');
    ws.write('mode.sh', 'echo\n');
    ws.link('link', 'a');
    ws.write('kind', 'a file\n');
    ws.write('dir/inner.txt', 'inner\n');
    ws.write('file', 'a file\n');
    ws.write('same.txt', 'same\n');
    const from = await takeSnapshot(ws.store, ws.workdir);
    chmodSync(join(ws.workdir, 'mode.sh'), 0o755);
    rmSync(join(ws.workdir, 'link'));
    ws.link('link', 'b');
    rmSync(join(ws.workdir, 'kind'));
    ws.link('kind', 'file');
    rmSync(join(ws.workdir, 'dir'), { recursive: true });
    ws.write('dir', 'now a file\n');
    rmSync(join(ws.workdir, 'file'));
    ws.write('file/inner.txt', 'now a directory\n');
    rmSync(join(ws.workdir, 'same.txt'));
    ws.write('same.txt', 'same\n');
    const to = await takeSnapshot(ws.store, ws.workdir, from.ref);
    const expected: FileChange[] = [
      { path: 'dir', change: 'added' },
      { path: 'dir/inner.txt', change: 'deleted' },
      { path: 'file', change: 'deleted' },
      { path: 'file/inner.txt', change: 'added' },
      { path: 'kind', change: 'modified' },
      { path: 'link', change: 'modified' },
      { path: 'mode.sh', change: 'modified' },
    ];
    expect(to.changes).toEqual(expected);
    expect(await compareSnapshots(ws.store, from.ref, to.ref)).toEqual(expected);
    // The stat of same.txt changed (new inode, new mtime), so its entry did, but not its content.
    expect((await flattenSnapshot(ws.store, to.ref)).get('same.txt')).not.toEqual(
      (await flattenSnapshot(ws.store, from.ref)).get('same.txt'),
    );
    expect(await compareSnapshots(ws.store, to.ref, to.ref)).toEqual([]);
  });

  test('files named like Object.prototype members are files like any other', async () => {
    const ws = workspace('compare');
    ws.write('constructor', 'c\n');
    ws.write('__proto__', 'p\n');
    const first = await takeSnapshot(ws.store, ws.workdir);
    expect([...(await flattenSnapshot(ws.store, first.ref)).keys()]).toEqual(['__proto__', 'constructor']);
    ws.write('toString', 't\n');
    rmSync(join(ws.workdir, '__proto__'));
    expect((await takeSnapshot(ws.store, ws.workdir, first.ref)).changes).toEqual([
      { path: '__proto__', change: 'deleted' },
      { path: 'toString', change: 'added' },
    ]);
  });
});
