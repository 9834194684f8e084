import { chmodSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentRef } from '../../../src/store/content-store';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { flattenSnapshot } from '../../../src/snapshots/tree';
import { loadTree } from '../../../src/snapshots/tree-node';
import { LONG_AGO, workspace, type Workspace } from './fixture';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('snapshot');
});

/** A snapshot's files as `path → what it holds`, for exact comparisons. */
async function contents(ref: string): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  for (const [path, entry] of await flattenSnapshot(ws.store, ref)) {
    if (entry.t === 'l') shown[path] = `-> ${entry.to}`;
    else if (entry.t === 's') shown[path] = `(${entry.k})`;
    else if (entry.big) shown[path] = `(big ${entry.s} bytes)`;
    else shown[path] = (await ws.store.getBytes(entry.h)).toString('utf8') + (entry.x ? ' (x)' : '');
  }
  return shown;
}

describe('what a snapshot holds', () => {
  test('files, the executable bit and symlinks (not followed); never .git or our temporary files', async () => {
    ws.write('README.md', 'hello\n');
    ws.write('bin/run.sh', '#!/bin/sh\n', { executable: true });
    ws.write('src/a.ts', 'export {};\n');
    ws.link('src/link-to-a', 'a.ts');
    ws.link('outside', '/etc');
    ws.write('.git/HEAD', 'ref: refs/heads/main\n');
    ws.write('vendor/.git', 'gitdir: ../.git/modules/vendor\n');
    ws.write('vendor/lib.c', 'int x;\n');
    ws.write('src/.a.ts.0123456789ab.agent-tmp', 'half written');
    ws.write('src/.b.ts.0123456789ab.agent-restore', 'half restored');
    const snapshot = await takeSnapshot(ws.store, ws.workdir);
    expect(await contents(snapshot.ref)).toEqual({
      'README.md': 'hello\n',
      'bin/run.sh': '#!/bin/sh\n (x)',
      outside: '-> /etc',
      'src/a.ts': 'export {};\n',
      'src/link-to-a': '-> a.ts',
      'vendor/lib.c': 'int x;\n',
    });
    expect(snapshot.files).toBe(6);
    expect(snapshot.changes).toEqual([]);
  });

  test('a file entry records hash, size, mtime and inode; the root node lists names in order', async () => {
    ws.write('b.txt', 'bee');
    ws.write('a.txt', 'ay');
    mkdirSync(join(ws.workdir, 'empty'));
    const { ref } = await takeSnapshot(ws.store, ws.workdir);
    const info = statSync(join(ws.workdir, 'a.txt'));
    const root = await loadTree(ws.store, ref);
    // No entry for the empty directory: like git, a snapshot holds files.
    expect([...root.keys()]).toEqual(['a.txt', 'b.txt']);
    expect(root.get('a.txt')).toEqual({ t: 'f', h: contentRef('ay'), s: 2, mt: info.mtimeMs, i: info.ino });
    expect(await ws.store.get(ref)).toBe(
      JSON.stringify({ v: 1, entries: { 'a.txt': root.get('a.txt'), 'b.txt': root.get('b.txt') } }),
    );
  });

  test('ignore rules: .gitignore in every directory (deeper wins, negation too) and .git/info/exclude', async () => {
    ws.write('.gitignore', 'node_modules/\n*.log\nbuild\n');
    ws.write('node_modules/left-pad/index.js', 'module.exports = 1;\n');
    ws.write('debug.log', 'noise');
    ws.write('build/out.js', 'compiled');
    ws.write('pkg/.gitignore', '!keep.log\ngenerated/\n');
    ws.write('pkg/keep.log', 'kept');
    ws.write('pkg/other.log', 'dropped');
    ws.write('pkg/generated/x.ts', 'generated');
    ws.write('pkg/sub/generated', 'a file, and the rule is for directories');
    ws.write('.git/info/exclude', 'secret.txt\n');
    ws.write('secret.txt', 'hidden');
    ws.write('pkg/secret.txt', 'hidden too: exclude patterns without a slash match at any depth');
    ws.write('src/main.ts', 'main');
    const { ref, files } = await takeSnapshot(ws.store, ws.workdir);
    expect(Object.keys(await contents(ref))).toEqual([
      '.gitignore',
      'pkg/.gitignore',
      'pkg/keep.log',
      'pkg/sub/generated',
      'src/main.ts',
    ]);
    expect(files).toBe(5);
    // Ignored content never reaches the store.
    for (const ignored of ['module.exports = 1;\n', 'noise', 'compiled', 'dropped', 'generated', 'hidden']) {
      expect(await ws.store.has(contentRef(ignored))).toBe(false);
    }
  });

  test('files over the size limit are recorded by their metadata: never read, hashed or stored', async () => {
    ws.write('small.txt', '0123456789');
    ws.write('large.bin', 'x'.repeat(11));
    const { ref } = await takeSnapshot(ws.store, ws.workdir, undefined, { maxFileBytes: 10 });
    const entries = await flattenSnapshot(ws.store, ref);
    const info = statSync(join(ws.workdir, 'large.bin'));
    expect(entries.get('large.bin')).toMatchObject({
      t: 'f',
      h: `meta:11:${info.mtimeMs}:${info.ino}`,
      s: 11,
      big: true,
    });
    expect(await ws.store.has(contentRef('x'.repeat(11)))).toBe(false);
    expect(entries.get('small.txt')).not.toHaveProperty('big');
    expect(await ws.store.has(contentRef('0123456789'))).toBe(true);
  });

  test('an empty workdir has a snapshot too', async () => {
    const snapshot = await takeSnapshot(ws.store, ws.workdir);
    expect(await ws.store.get(snapshot.ref)).toBe('{"v":1,"entries":{}}');
    expect(snapshot.files).toBe(0);
  });

  test('a cancelled scan stops', async () => {
    ws.write('a.txt', 'a');
    await expect(takeSnapshot(ws.store, ws.workdir, undefined, { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});

describe('incremental snapshots', () => {
  beforeEach(() => {
    ws.write('src/a.ts', 'alpha');
    ws.write('src/b.ts', 'beta');
    ws.write('docs/guide.md', 'guide');
  });

  test('nothing changed: the same reference', async () => {
    const first = await takeSnapshot(ws.store, ws.workdir);
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    expect(second).toEqual({ ref: first.ref, files: 3, changes: [] });
  });

  test('a file whose size, mtime and inode are unchanged is not read again', async () => {
    const first = await takeSnapshot(ws.store, ws.workdir);
    // Same size, same mtime, same inode: only reading the file could tell it changed.
    const { mtime } = statSync(join(ws.workdir, 'src/a.ts'));
    writeFileSync(join(ws.workdir, 'src/a.ts'), 'ALPHA');
    utimesSync(join(ws.workdir, 'src/a.ts'), mtime, mtime);
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    expect(second.ref).toBe(first.ref);
    // Without the previous snapshot the file is read, and the change shows.
    const fresh = await takeSnapshot(ws.store, ws.workdir);
    expect((await flattenSnapshot(ws.store, fresh.ref)).get('src/a.ts')).toMatchObject({ h: contentRef('ALPHA') });
  });

  test('racy-mtime guard: a file modified just before the scan is read again next time', async () => {
    // A whole second, just now: the same value can be set again exactly.
    const justNow = new Date(Math.floor(Date.now() / 1000) * 1000);
    const path = join(ws.workdir, 'src/a.ts');
    utimesSync(path, justNow, justNow);
    const first = await takeSnapshot(ws.store, ws.workdir);
    expect((await flattenSnapshot(ws.store, first.ref)).get('src/a.ts')).toMatchObject({ mt: 0 });
    expect((await flattenSnapshot(ws.store, first.ref)).get('src/b.ts')).toMatchObject({
      mt: statSync(join(ws.workdir, 'src/b.ts')).mtimeMs,
    });
    // Rewritten within the same mtime tick, same size, same inode: its stat cannot tell.
    writeFileSync(path, 'ALPHA');
    utimesSync(path, justNow, justNow);
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    expect(second.changes).toEqual([{ path: 'src/a.ts', change: 'modified' }]);
  });

  test('changes: created, modified (content, executable bit), deleted, sorted by path', async () => {
    const first = await takeSnapshot(ws.store, ws.workdir);
    ws.write('src/b.ts', 'beta, longer');
    ws.write('src/c.ts', 'new');
    chmodSync(join(ws.workdir, 'docs/guide.md'), 0o755);
    rmSync(join(ws.workdir, 'src/a.ts'));
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    expect(second.changes).toEqual([
      { path: 'docs/guide.md', change: 'modified' },
      { path: 'src/a.ts', change: 'deleted' },
      { path: 'src/b.ts', change: 'modified' },
      { path: 'src/c.ts', change: 'added' },
    ]);
    expect(second.files).toBe(3);
  });

  test('a file replaced by another one with the same stat but a new inode is read again', async () => {
    const first = await takeSnapshot(ws.store, ws.workdir);
    const path = join(ws.workdir, 'src/a.ts');
    writeFileSync(`${path}.new`, 'ALPHA');
    utimesSync(`${path}.new`, LONG_AGO, LONG_AGO);
    renameSync(`${path}.new`, path);
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    expect(second.changes).toEqual([{ path: 'src/a.ts', change: 'modified' }]);
  });

  test('an unchanged directory keeps its node: the same reference as before', async () => {
    const first = await takeSnapshot(ws.store, ws.workdir);
    ws.write('src/b.ts', 'BETA!');
    const second = await takeSnapshot(ws.store, ws.workdir, first.ref);
    const [before, after] = [await loadTree(ws.store, first.ref), await loadTree(ws.store, second.ref)];
    expect(after.get('docs')).toEqual(before.get('docs'));
    expect(after.get('src')).not.toEqual(before.get('src'));
  });
});
