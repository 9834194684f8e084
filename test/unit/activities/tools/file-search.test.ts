/**
 * How Glob and Grep find files: patterns confined before anything is walked, and the walk
 * beneath the workdir in path order. The escapes themselves (`..`, `~`, links) are in
 * confinement.test.ts; this is what the two functions promise their callers.
 */
import { mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { confinedPattern, findFiles, visitFiles } from '../../../../src/activities/tools/file-search';
import { ToolError } from '../../../../src/activities/tools/tool';
import { Workdir } from '../../../../src/workdir/workdir';
import { toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

describe('confinedPattern', () => {
  const at = { workdir: '/w/repo', root: '/w/repo', field: 'pattern' };
  const inSrc = { workdir: '/w/repo', root: '/w/repo/src', field: 'glob' };

  test('a relative pattern is kept; an absolute one inside becomes relative to the searched directory', () => {
    expect(confinedPattern('src/**/*.ts', at)).toBe('src/**/*.ts');
    expect(confinedPattern('/w/repo/src/*.ts', at)).toBe('src/*.ts');
    expect(confinedPattern('/w/repo/src/*.ts', inSrc)).toBe('*.ts');
    expect(confinedPattern('/w/repo/lib/*.ts', inSrc)).toBe('../lib/*.ts');
    expect(confinedPattern('/w/repo', at)).toBe('.');
  });

  test('a literal climb that stays inside is allowed; one that leaves, or follows a wildcard, is not', () => {
    expect(confinedPattern('../lib/*.ts', inSrc)).toBe('../lib/*.ts');
    expect(() => confinedPattern('../../*', inSrc)).toThrow(
      'glob ../../* reaches outside the working directory /w/repo. Only files inside it can be searched.',
    );
    expect(() => confinedPattern('*/../../x', inSrc)).toThrow(/reaches outside/);
    expect(() => confinedPattern('/w/repo-other/*', at)).toThrow(/reaches outside/);
  });

  test('a NUL byte, too many brace groups or expansions are refused, naming the field', () => {
    expect(() => confinedPattern('a\0b', inSrc)).toThrow(new ToolError('glob contains a NUL byte.'));
    expect(() => confinedPattern('{a,b}'.repeat(11), at)).toThrow(/has too many brace groups; write it more narrowly/);
    expect(() => confinedPattern('{a,b}'.repeat(10), at)).toThrow(/expands to too many patterns/);
    expect(() => confinedPattern('f{1..2000}', at)).toThrow(/expands to too many patterns/);
    expect(confinedPattern('{a,b}'.repeat(9), at)).toBe('{a,b}'.repeat(9));
  });
});

describe('visitFiles and findFiles', () => {
  let repo: ToolWorkdir;
  const signal = new AbortController().signal;

  beforeEach(() => {
    repo = toolWorkdir('file-search');
    for (const file of ['a-b.txt', 'a.txt', 'a/b.txt', 'a/deep/c.txt', 'node_modules/m.txt', '.git/HEAD'])
      repo.write(file, file);
  });

  const found = (pattern: string, root = '') =>
    Workdir.using(repo.path, async (workdir) =>
      (await findFiles(workdir, pattern, { root, signal })).map((file) => file.path.slice(repo.path.length + 1)),
    );

  test('in the order of whole paths, by code unit, as a sort of the list would give; node_modules and .git skipped', async () => {
    expect(await found('**/*')).toEqual(['a-b.txt', 'a.txt', 'a/b.txt', 'a/deep/c.txt']);
  });

  test('a pattern without ** stays at its depth; a literal one names one regular file', async () => {
    expect(await found('a/*')).toEqual(['a/b.txt']);
    expect(await found('a/deep/c.txt')).toEqual(['a/deep/c.txt']);
    expect(await found('a/deep')).toEqual([]);
    expect(await found('nope/c.txt')).toEqual([]);
  });

  test('under a root, the pattern is relative to it and the paths are still absolute', async () => {
    expect(await found('**/*.txt', 'a')).toEqual(['a/b.txt', 'a/deep/c.txt']);
    expect(await found('*.txt', 'a/deep')).toEqual(['a/deep/c.txt']);
  });

  test('each file comes with its size and modification time', async () => {
    utimesSync(join(repo.path, 'a.txt'), 1_000, 1_000);
    const files = await Workdir.using(repo.path, (workdir) => findFiles(workdir, 'a.txt', { root: '', signal }));
    expect(files).toEqual([{ path: join(repo.path, 'a.txt'), size: 5, mtimeMs: 1_000_000 }]);
  });

  test('the walk stops when the visitor says so, or once the call is cancelled', async () => {
    mkdirSync(join(repo.path, 'empty'));
    const visited: string[] = [];
    await Workdir.using(repo.path, (workdir) =>
      visitFiles(workdir, '**/*', { root: '', signal }, (_directory, name) => {
        visited.push(name);
        return visited.length < 2;
      }),
    );
    expect(visited).toEqual(['a-b.txt', 'a.txt']);
    const cancelled = new AbortController();
    cancelled.abort();
    const none: string[] = [];
    await Workdir.using(repo.path, (workdir) =>
      visitFiles(workdir, '**/*', { root: '', signal: cancelled.signal }, (_directory, name) => {
        none.push(name);
      }),
    );
    expect(none).toEqual([]);
  });
});
