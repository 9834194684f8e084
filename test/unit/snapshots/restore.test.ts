import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { materializeSnapshot, restoreSnapshot, untrackedPaths } from '../../../src/snapshots/restore';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { compareSnapshots, flattenSnapshot } from '../../../src/snapshots/tree';
import { scratchDir } from '../../support/paths';
import { listing, workspace, type Workspace } from './fixture';

let ws: Workspace;
/** The session's snapshots: the tree at turn 1, then after the agent's changes. */
let turn1: string;
let turn2: string;
let turn1Files: Record<string, string>;

beforeEach(async () => {
  ws = workspace('restore');
  ws.write('.gitignore', 'node_modules/\n');
  ws.write('src/a.ts', 'alpha\n');
  ws.write('src/b.ts', 'beta\n');
  ws.write('bin/run', '#!/bin/sh\n', { executable: true });
  ws.link('current', 'src/a.ts');
  ws.write('docs/old/notes.md', 'notes\n');
  turn1 = (await takeSnapshot(ws.store, ws.workdir)).ref;
  turn1Files = ws.listing();
  // The agent's turn: edits, a new file, a deletion, a re-pointed link, a mode change.
  ws.write('src/a.ts', 'ALPHA\n');
  ws.write('src/new/c.ts', 'gamma\n');
  rmSync(join(ws.workdir, 'docs'), { recursive: true });
  rmSync(join(ws.workdir, 'current'));
  ws.link('current', 'src/b.ts');
  chmodSync(join(ws.workdir, 'bin/run'), 0o644);
  ws.write('node_modules/pkg/index.js', 'ignored, never touched\n');
  turn2 = (await takeSnapshot(ws.store, ws.workdir, turn1)).ref;
});

const restore = (options: { force?: boolean; targetRef?: string; expectedRef?: string; maxFileBytes?: number } = {}) =>
  restoreSnapshot(ws.store, ws.workdir, { targetRef: turn1, expectedRef: turn2, force: false, ...options });

describe('restoreSnapshot', () => {
  test('puts the files back exactly as they were; ignored files and .git are left alone', async () => {
    ws.write('.git/HEAD', 'ref: refs/heads/main\n');
    const result = await restore();
    expect(result).toEqual({ kind: 'restored', currentRef: turn2, filesChanged: 5, notRestored: [] });
    expect(ws.listing()).toEqual({
      ...turn1Files,
      '.git/HEAD': 'ref: refs/heads/main\n',
      'node_modules/pkg/index.js': 'ignored, never touched\n',
    });
    // The directory the new file needed is gone again; the snapshot is the one taken at turn 1.
    expect(existsSync(join(ws.workdir, 'src/new'))).toBe(false);
    expect(await compareSnapshots(ws.store, turn1, (await takeSnapshot(ws.store, ws.workdir)).ref)).toEqual([]);
    // And forward again.
    const back = await restoreSnapshot(ws.store, ws.workdir, { targetRef: turn2, expectedRef: turn1, force: false });
    expect(back).toMatchObject({ kind: 'restored', filesChanged: 5 });
    expect(ws.read('src/new/c.ts')).toBe('gamma\n');
  });

  test('refuses when someone else changed a file the restore would overwrite, and changes nothing', async () => {
    ws.write('src/a.ts', 'edited by hand\n');
    ws.write('src/b.ts', 'also edited\n');
    ws.write('notes.txt', 'a new file by hand\n');
    ws.write('README.md', 'deleted by the rewind? no: it was added beside the session\n');
    rmSync(join(ws.workdir, 'README.md'));
    const before = ws.listing();
    const result = await restore();
    expect(result).toEqual({
      kind: 'refused',
      outsideChanges: [
        { path: 'notes.txt', change: 'added' },
        { path: 'src/a.ts', change: 'modified' },
        { path: 'src/b.ts', change: 'modified' },
      ],
    });
    expect(ws.listing()).toEqual(before);
  });

  test('a change beside the session that the restore would not touch is no conflict', async () => {
    // Changed by hand, but to what the restore puts there anyway.
    rmSync(join(ws.workdir, 'src/a.ts'));
    ws.write('src/a.ts', 'alpha\n');
    expect(await restore()).toMatchObject({ kind: 'restored' });
    expect(ws.listing()).toEqual({ ...turn1Files, 'node_modules/pkg/index.js': 'ignored, never touched\n' });
  });

  test('force overwrites, and the outside change stays retrievable under currentRef', async () => {
    ws.write('src/a.ts', 'edited by hand\n');
    const result = await restore({ force: true });
    expect(result).toMatchObject({ kind: 'restored', filesChanged: 5, notRestored: [] });
    expect(ws.read('src/a.ts')).toBe('alpha\n');
    const currentRef = (result as { currentRef: string }).currentRef;
    const kept = (await flattenSnapshot(ws.store, currentRef)).get('src/a.ts');
    expect(kept?.t === 'f' && (await ws.store.get(kept.h))).toBe('edited by hand\n');
  });

  test('a restore that crashed half-way completes when run again, instead of being refused', async () => {
    // What the first attempt got done before the crash: two files back, one deletion, and the
    // leftover of an atomic write it did not get to rename.
    ws.write('src/a.ts', 'alpha\n');
    chmodSync(join(ws.workdir, 'bin/run'), 0o755);
    rmSync(join(ws.workdir, 'src/new'), { recursive: true });
    writeFileSync(join(ws.workdir, 'docs.partial.agent-restore'), 'leftover');
    const result = await restore();
    expect(result).toMatchObject({ kind: 'restored', filesChanged: 2, notRestored: [] });
    expect(ws.listing()).toMatchObject(turn1Files);
  });

  test('a directory becomes a file and a file a directory, both ways', async () => {
    ws.write('swap/inner.txt', 'inside a directory\n');
    ws.write('flip', 'a file\n');
    const before = (await takeSnapshot(ws.store, ws.workdir, turn2)).ref;
    rmSync(join(ws.workdir, 'swap'), { recursive: true });
    ws.write('swap', 'now a file\n');
    rmSync(join(ws.workdir, 'flip'));
    ws.write('flip/inner.txt', 'now inside a directory\n');
    const after = (await takeSnapshot(ws.store, ws.workdir, before)).ref;
    const expectedAfter = ws.listing();

    expect(
      await restoreSnapshot(ws.store, ws.workdir, { targetRef: before, expectedRef: after, force: false }),
    ).toMatchObject({ kind: 'restored', filesChanged: 4 });
    expect(ws.read('swap/inner.txt')).toBe('inside a directory\n');
    expect(ws.read('flip')).toBe('a file\n');
    expect(
      await restoreSnapshot(ws.store, ws.workdir, { targetRef: after, expectedRef: before, force: false }),
    ).toMatchObject({ kind: 'restored', filesChanged: 4 });
    expect(ws.listing()).toEqual(expectedAfter);
  });

  test('a file over the size limit has no content to restore: left as it is, and listed', async () => {
    ws.write('data.bin', 'x'.repeat(100));
    ws.write('small.txt', 'small\n');
    const withBig = (await takeSnapshot(ws.store, ws.workdir, turn2, { maxFileBytes: 50 })).ref;
    ws.write('data.bin', 'y'.repeat(100));
    ws.write('small.txt', 'changed\n');
    const later = (await takeSnapshot(ws.store, ws.workdir, withBig, { maxFileBytes: 50 })).ref;
    const result = await restoreSnapshot(ws.store, ws.workdir, {
      targetRef: withBig,
      expectedRef: later,
      force: false,
      maxFileBytes: 50,
    });
    expect(result).toMatchObject({ kind: 'restored', filesChanged: 1, notRestored: ['data.bin'] });
    expect(ws.read('data.bin')).toBe('y'.repeat(100));
    expect(ws.read('small.txt')).toBe('small\n');
    // A big file the target does not have is not deleted either: its content exists nowhere else.
    const back = await restoreSnapshot(ws.store, ws.workdir, {
      targetRef: turn2,
      expectedRef: later,
      force: true,
      maxFileBytes: 50,
    });
    expect(back).toMatchObject({ kind: 'restored', notRestored: ['data.bin'] });
    expect(ws.read('data.bin')).toBe('y'.repeat(100));
    expect(existsSync(join(ws.workdir, 'small.txt'))).toBe(false);
  });

  test('a directory holding only ignored files stays when the files it tracked go', async () => {
    ws.write('src/new/node_modules/x.js', 'ignored\n');
    const result = await restore();
    expect(result).toMatchObject({ kind: 'restored', filesChanged: 5 });
    expect(readdirSync(join(ws.workdir, 'src/new'))).toEqual(['node_modules']);
  });

  test('a file cannot replace a directory that still holds ignored files: listed, not restored', async () => {
    ws.write('build', 'a file at turn 3\n');
    const turn3 = (await takeSnapshot(ws.store, ws.workdir, turn2)).ref;
    rmSync(join(ws.workdir, 'build'));
    ws.write('build/.gitignore', '*.o\n');
    ws.write('build/main.o', 'object code');
    const now = (await takeSnapshot(ws.store, ws.workdir, turn3)).ref;
    const result = await restoreSnapshot(ws.store, ws.workdir, { targetRef: turn3, expectedRef: now, force: false });
    expect(result).toMatchObject({ kind: 'restored', filesChanged: 1, notRestored: ['build'] });
    expect(readdirSync(join(ws.workdir, 'build'))).toEqual(['main.o']);
  });

  test('never writes through a symlinked directory (an ignored one the snapshot cannot see)', async () => {
    ws.write('out/x.txt', 'inside\n');
    const withOut = (await takeSnapshot(ws.store, ws.workdir, turn2)).ref;
    rmSync(join(ws.workdir, 'out'), { recursive: true });
    const elsewhere = scratchDir('elsewhere');
    ws.write('.git/info/exclude', 'out\n');
    symlinkSync(elsewhere, join(ws.workdir, 'out'));
    const now = (await takeSnapshot(ws.store, ws.workdir, withOut)).ref;
    await expect(
      restoreSnapshot(ws.store, ws.workdir, { targetRef: withOut, expectedRef: now, force: false }),
    ).rejects.toThrow('Cannot restore out/x.txt: out is a symbolic link, not a directory');
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe('materializeSnapshot', () => {
  test('writes the snapshot into a new directory: the same files, modes and links', async () => {
    const target = join(scratchDir('materialize'), 'fork', 'repo');
    expect(await materializeSnapshot(ws.store, target, turn1)).toEqual({ files: 6, notRestored: [] });
    expect(listing(target)).toEqual(turn1Files);
    expect(await compareSnapshots(ws.store, turn1, (await takeSnapshot(ws.store, target)).ref)).toEqual([]);
  });

  test('resumes what a crashed run left, rewriting what differs', async () => {
    const target = scratchDir('materialize');
    mkdirSync(join(target, 'src'));
    writeFileSync(join(target, 'src/a.ts'), 'alpha\n');
    writeFileSync(join(target, 'src/b.ts'), 'truncated?');
    symlinkSync('elsewhere', join(target, 'current'));
    writeFileSync(join(target, 'src/.b.ts.0123456789ab.agent-restore'), 'leftover');
    expect(await materializeSnapshot(ws.store, target, turn1)).toEqual({ files: 6, notRestored: [] });
    expect(listing(target)).toEqual({ ...turn1Files, 'src/.b.ts.0123456789ab.agent-restore': 'leftover' });
  });

  test('refuses a directory holding anything the snapshot does not, naming it, and writes nothing', async () => {
    const target = scratchDir('materialize');
    writeFileSync(join(target, 'mine.txt'), 'not from the snapshot');
    mkdirSync(join(target, '.git'));
    writeFileSync(join(target, 'src'), 'a file where the snapshot has a directory');
    await expect(materializeSnapshot(ws.store, target, turn1)).rejects.toThrow(
      /holds what the snapshot does not: \.git\/, mine\.txt, src$/,
    );
    expect(listing(target)).toEqual({
      'mine.txt': 'not from the snapshot',
      src: 'a file where the snapshot has a directory',
    });
  });

  test('a big file has no content to write: listed in notRestored', async () => {
    ws.write('data.bin', 'x'.repeat(100));
    const ref = (await takeSnapshot(ws.store, ws.workdir, undefined, { maxFileBytes: 50 })).ref;
    const target = scratchDir('materialize');
    expect(await materializeSnapshot(ws.store, target, ref)).toEqual({ files: 7, notRestored: ['data.bin'] });
    expect(existsSync(join(target, 'data.bin'))).toBe(false);
  });
});

describe('untrackedPaths', () => {
  test('names the files a snapshot leaves out, down every directory; empty directories are no loss', async () => {
    mkdirSync(join(ws.workdir, 'empty', 'deeper'), { recursive: true });
    ws.write('node_modules/pkg/lib/more.js', 'ignored too\n');
    expect(await untrackedPaths(ws.store, ws.workdir, turn2)).toEqual([
      'node_modules/pkg/index.js',
      'node_modules/pkg/lib/more.js',
    ]);
    rmSync(join(ws.workdir, 'node_modules'), { recursive: true });
    expect(await untrackedPaths(ws.store, ws.workdir, turn2)).toEqual([]);
  });
});
