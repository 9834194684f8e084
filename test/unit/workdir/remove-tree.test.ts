/**
 * Removing a tree a session wrote, as the worker: everything in it goes, nothing it links to
 * outside is followed or touched, special files are never opened, and a tree that cannot be
 * removed (too deep, reached through a link) says so and stays.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REMOVE_TREE_MAX_DEPTH, removeTree } from '../../../src/workdir/remove-tree';
import { scratchDir } from '../../support/paths';

let root: string;
let tree: string;
let outside: string;

beforeEach(() => {
  root = scratchDir('remove-tree');
  tree = join(root, 'worktree');
  outside = join(root, 'outside');
  mkdirSync(join(outside, 'kept'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  writeFileSync(join(outside, 'kept', 'file.txt'), 'kept\n');
  mkdirSync(join(tree, 'src', 'deep', 'deeper'), { recursive: true });
  writeFileSync(join(tree, 'a.txt'), 'a\n');
  writeFileSync(join(tree, 'src', 'deep', 'deeper', 'b.txt'), 'b\n');
});

test('removes files, directories, links and special files, and nothing a link leads to', async () => {
  symlinkSync(outside, join(tree, 'src', 'to-outside'));
  symlinkSync(join(outside, 'secret.txt'), join(tree, 'secret-link'));
  // A FIFO: opening it would wait for a writer for ever.
  execFileSync('mkfifo', [join(tree, 'src', 'pipe')]);
  expect(await removeTree(tree)).toBe(true);
  expect(existsSync(tree)).toBe(false);
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
  expect(readFileSync(join(outside, 'kept', 'file.txt'), 'utf8')).toBe('kept\n');
});

test('a tree that is not there is removed already', async () => {
  expect(await removeTree(join(root, 'never-made'))).toBe(true);
});

test('a path through a link is not followed: the tree it leads to stays', async () => {
  symlinkSync(tree, join(root, 'link'));
  expect(await removeTree(join(root, 'link', 'src'))).toBe(false);
  expect(existsSync(join(tree, 'src', 'deep', 'deeper', 'b.txt'))).toBe(true);
});

test('a tree deeper than the limit says it is not gone, and what it could not reach stays', async () => {
  let deepest = tree;
  for (let level = 0; level <= REMOVE_TREE_MAX_DEPTH; level++) deepest = join(deepest, 'd');
  mkdirSync(deepest, { recursive: true });
  writeFileSync(join(deepest, 'bottom.txt'), 'bottom\n');
  expect(await removeTree(tree)).toBe(false);
  expect(readFileSync(join(deepest, 'bottom.txt'), 'utf8')).toBe('bottom\n');
  expect(existsSync(join(tree, 'a.txt'))).toBe(false);
});

test('a big tree is removed in slices: the event loop turns meanwhile (heartbeats go out)', async () => {
  for (let index = 0; index < 2_000; index++) writeFileSync(join(tree, `f${index}`), '');
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  try {
    expect(await removeTree(tree)).toBe(true);
  } finally {
    clearInterval(timer);
  }
  expect(turns).toBeGreaterThan(0);
  expect(existsSync(tree)).toBe(false);
});
