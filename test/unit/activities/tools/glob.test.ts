/**
 * Glob on a real filesystem: which files a pattern finds, in which order, where. Patterns that
 * reach outside the workdir are in confinement.test.ts.
 */
import { mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { globTool } from '../../../../src/activities/tools/glob';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('glob');
  repo.write('src/a.ts', 'export const parseConfig = 1;\n');
  repo.write('src/b.ts', 'import { parseConfig } from "./a";\nPARSECONFIG\n');
  repo.write('README.md', 'parseConfig docs\n');
  repo.write('node_modules/x/index.ts', 'parseConfig');
});

const glob = async (input: { pattern: string; path?: string }) => (await globTool.execute(input, repo.context())).text;

/** Sets a file's modification time, in seconds since the epoch. */
const touch = (path: string, seconds: number) => utimesSync(join(repo.path, path), seconds, seconds);

describe('Glob', () => {
  test('Glob matches files, skipping node_modules', async () => {
    const output = await globTool.execute({ pattern: '**/*.ts' }, repo.context());
    expect(output.text.split('\n').sort()).toEqual(['src/a.ts', 'src/b.ts']);
    expect((await globTool.execute({ pattern: '*.py' }, repo.context())).text).toBe('No files found');
  });

  test('newest first; files of the same time by path', async () => {
    touch('src/a.ts', 1_000);
    touch('src/b.ts', 3_000);
    touch('README.md', 2_000);
    repo.write('src/c.ts', '');
    touch('src/c.ts', 1_000);
    expect(await glob({ pattern: '**/*' })).toBe(['src/b.ts', 'README.md', 'src/a.ts', 'src/c.ts'].join('\n'));
  });

  test('a pattern without ** stays at its depth; a plain name finds that file', async () => {
    repo.write('top.ts', '');
    expect(await glob({ pattern: '*.ts' })).toBe('top.ts');
    expect(await glob({ pattern: 'src/*.ts' })).toMatch(/^src\/[ab]\.ts\nsrc\/[ab]\.ts$/);
    expect(await glob({ pattern: 'README.md' })).toBe('README.md');
    expect(await glob({ pattern: 'src/missing.ts' })).toBe('No files found');
  });

  test('dotfiles are found; .git is skipped like node_modules; directories are not files', async () => {
    repo.write('.env.example', 'A=1');
    repo.write('.git/config', '[core]');
    mkdirSync(join(repo.path, 'empty.d'));
    expect(await glob({ pattern: '**/.*' })).toBe('.env.example');
    expect(await glob({ pattern: '**/config' })).toBe('No files found');
    expect(await glob({ pattern: '*.d' })).toBe('No files found');
  });

  test('path: the directory searched; results stay relative to the workdir; a missing one is named', async () => {
    repo.write('lib/a.ts', '');
    expect(await glob({ pattern: '*.ts', path: 'lib' })).toBe('lib/a.ts');
    expect(await glob({ pattern: '**/*.ts', path: join(repo.path, 'lib') })).toBe('lib/a.ts');
    await expect(glob({ pattern: '*.ts', path: 'nope' })).rejects.toThrow('Directory does not exist: nope');
    await expect(glob({ pattern: '*', path: 'README.md' })).rejects.toThrow('Directory does not exist: README.md');
  });

  test('more than 100 files: the newest 100, and a note saying how many matched', async () => {
    for (let index = 0; index < 105; index++) repo.write(`many/f${String(index).padStart(3, '0')}.txt`, '');
    touch('many/f104.txt', 4_000_000_000);
    const lines = (await glob({ pattern: 'many/*.txt' })).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe('many/f104.txt');
    expect(lines[100]).toBe('(Results are truncated: 105 files matched. Use a more specific path or pattern.)');
  });

  test('its summary names the directory when given; its input needs a pattern and takes nothing else', () => {
    expect(globTool.summarize({ pattern: '*.ts' })).toBe('Glob *.ts');
    expect(globTool.summarize({ pattern: '*.ts', path: 'src' })).toBe('Glob *.ts in src');
    expect(inputError('Glob', { pattern: '*.ts', path: 'src' })).toBeUndefined();
    expect(inputError('Glob', {})).toContain('the required parameter `pattern` is missing');
    expect(inputError('Glob', { pattern: '' })).toContain('- `pattern`:');
    expect(inputError('Glob', { pattern: '*', exclude: 'x' })).toContain('unexpected parameter(s): exclude');
  });
});
