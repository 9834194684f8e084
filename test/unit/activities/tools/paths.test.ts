/** How the tools name paths: resolved beneath the workdir, shown relative to it, hashed. */
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  asToolError,
  displayPath,
  inWorkdir,
  isInside,
  resolveInWorkdir,
  sha256,
} from '../../../../src/activities/tools/paths';
import { ToolError } from '../../../../src/activities/tools/tool';
import { WorkdirRefusal } from '../../../../src/workdir/workdir-refusal';
import { toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('paths');
});

describe('isInside', () => {
  test.each([
    ['/w/repo', '/w/repo', true],
    ['/w/repo', '/w/repo/src/a.ts', true],
    ['/w/repo', '/w/repo/..hidden/a', true],
    ['/w/repo', '/w/repo/../other', false],
    ['/w/repo', '/w', false],
    ['/w/repo', '/w/repo-other/a.ts', false],
    ['/w/repo', '/etc/passwd', false],
  ])('%s holds %s: %s', (root, candidate, inside) => {
    expect(isInside(root, candidate)).toBe(inside);
  });
});

describe('displayPath', () => {
  test('relative to the workdir when inside it ("." for the workdir), else as given', () => {
    expect(displayPath('/w/repo', '/w/repo/src/a.ts')).toBe('src/a.ts');
    expect(displayPath('/w/repo', 'src/../lib/b.ts')).toBe('lib/b.ts');
    expect(displayPath('/w/repo', '/w/repo')).toBe('.');
    expect(displayPath('/w/repo', '/etc/passwd')).toBe('/etc/passwd');
    expect(displayPath('/w/repo', '../secret')).toBe('../secret');
  });
});

test('sha256 is the hex digest of the bytes, the same for a string and its UTF-8 buffer', () => {
  expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  expect(sha256(Buffer.from('héllo'))).toBe(sha256('héllo'));
  expect(sha256('héllo')).toBe(createHash('sha256').update(Buffer.from('héllo', 'utf8')).digest('hex'));
});

describe('resolveInWorkdir', () => {
  test('the real path, existing or not, links inside followed', () => {
    mkdirSync(join(repo.path, 'src'));
    repo.write('src/a.ts', '');
    symlinkSync('src', join(repo.path, 'lib'));
    expect(resolveInWorkdir(repo.path, 'lib/a.ts')).toBe(join(repo.path, 'src/a.ts'));
    expect(resolveInWorkdir(repo.path, 'lib/new/b.ts')).toBe(join(repo.path, 'src/new/b.ts'));
    expect(resolveInWorkdir(repo.path, join(repo.path, 'src/../src/a.ts'))).toBe(join(repo.path, 'src/a.ts'));
  });

  test('outside, or through a link that leads outside: a ToolError the model reads', () => {
    symlinkSync('..', join(repo.path, 'up'));
    expect(() => resolveInWorkdir(repo.path, '../a.ts')).toThrow(ToolError);
    expect(() => resolveInWorkdir(repo.path, '../a.ts')).toThrow(/^Path \.\.\/a\.ts is outside the working directory/);
    expect(() => resolveInWorkdir(repo.path, 'up/a.ts')).toThrow(/symbolic link that leads outside/);
    expect(() => resolveInWorkdir(repo.path, '~/.ssh/id_rsa')).toThrow(/outside the working directory/);
  });

  test('a path the file system cannot follow is a ToolError naming the reason, not a failure', () => {
    repo.write('a.txt', '');
    expect(() => resolveInWorkdir(repo.path, 'a.txt/b')).toThrow(
      new ToolError('Path a.txt/b cannot be resolved (ENOTDIR).'),
    );
  });
});

describe('inWorkdir and asToolError', () => {
  test("refusals become ToolErrors; other errors pass through, without the worker's descriptor paths", async () => {
    await expect(inWorkdir(repo.path, (workdir) => workdir.realPath('../x'))).rejects.toBeInstanceOf(ToolError);
    const refusal = asToolError(new WorkdirRefusal('not that one'));
    expect(refusal).toBeInstanceOf(ToolError);
    expect((refusal as ToolError).message).toBe('not that one');
    const system = Object.assign(new Error("EACCES: permission denied, open '/proc/self/fd/23/src/a.ts'"), {
      code: 'EACCES',
    });
    expect(asToolError(system)).toBe(system);
    expect(system.message).toBe("EACCES: permission denied, open 'src/a.ts'");
    const plain = new Error('disk on fire');
    expect(asToolError(plain)).toBe(plain);
  });

  test('runs the callback with the workdir open, and gives back its result', async () => {
    repo.write('a.txt', 'x');
    expect(await inWorkdir(repo.path, (workdir) => workdir.stat('a.txt')?.isFile())).toBe(true);
  });
});
