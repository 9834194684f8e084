/**
 * Grep on a real filesystem: its output modes as ripgrep prints them, its filters and limits.
 * Patterns and paths that reach outside the workdir, and catastrophic patterns, are in
 * confinement.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { grepTool } from '../../../../src/activities/tools/grep';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('grep');
  repo.write('src/a.ts', 'export const parseConfig = 1;\n');
  repo.write('src/b.ts', 'import { parseConfig } from "./a";\nPARSECONFIG\n');
  repo.write('README.md', 'parseConfig docs\n');
  repo.write('node_modules/x/index.ts', 'parseConfig');
});

type GrepInput = Parameters<typeof grepTool.execute>[0];
const grep = async (input: GrepInput) => (await grepTool.execute(input, repo.context())).text;

describe('Grep', () => {
  test('Grep context lines (-A, -B, -C) as ripgrep prints them: ":" for matches, "-" for context, "--" between groups', async () => {
    writeFileSync(
      join(repo.path, 'lines.txt'),
      ['one', 'two', 'MATCH three', 'four', 'five', 'six', 'seven', 'MATCH eight', 'nine'].join('\n'),
    );
    const around = await grepTool.execute(
      { pattern: 'MATCH', path: 'lines.txt', output_mode: 'content', '-C': 1 },
      repo.context(),
    );
    expect(around.text).toBe(
      [
        'lines.txt-2-two',
        'lines.txt:3:MATCH three',
        'lines.txt-4-four',
        '--',
        'lines.txt-7-seven',
        'lines.txt:8:MATCH eight',
        'lines.txt-9-nine',
      ].join('\n'),
    );
    const merged = await grepTool.execute(
      { pattern: 'MATCH', path: 'lines.txt', output_mode: 'content', '-A': 4, '-B': 0 },
      repo.context(),
    );
    // Adjacent groups join: no separator.
    expect(merged.text.split('\n')).toEqual([
      'lines.txt:3:MATCH three',
      'lines.txt-4-four',
      'lines.txt-5-five',
      'lines.txt-6-six',
      'lines.txt-7-seven',
      'lines.txt:8:MATCH eight',
      'lines.txt-9-nine',
    ]);
    // Context applies to content only.
    expect(
      (await grepTool.execute({ pattern: 'MATCH', path: 'lines.txt', output_mode: 'count', '-C': 2 }, repo.context()))
        .text,
    ).toBe('lines.txt:2');
  });

  test('Grep type filters by language; an unknown type is refused with the known ones', async () => {
    writeFileSync(join(repo.path, 'tool.py'), 'def parseConfig():\n    pass\n');
    expect((await grepTool.execute({ pattern: 'parseConfig', type: 'py' }, repo.context())).text).toBe(
      'Found 1 file(s)\ntool.py',
    );
    expect((await grepTool.execute({ pattern: 'parseConfig', type: 'ts' }, repo.context())).text).toBe(
      'Found 2 file(s)\nsrc/a.ts\nsrc/b.ts',
    );
    await expect(grepTool.execute({ pattern: 'x', type: 'cobol' }, repo.context())).rejects.toThrow(
      /Unknown file type "cobol". Known types: c, cpp,/,
    );
  });

  test('Grep multiline: a pattern across lines, . matching newlines, each spanned line shown', async () => {
    writeFileSync(join(repo.path, 'multi.ts'), 'function parse(\n  text: string,\n) {\n  return text;\n}\n');
    const spanning = await grepTool.execute(
      { pattern: 'parse\\(.*?\\)', path: 'multi.ts', multiline: true, output_mode: 'content' },
      repo.context(),
    );
    expect(spanning.text).toBe(
      ['multi.ts:1:function parse(', 'multi.ts:2:  text: string,', 'multi.ts:3:) {'].join('\n'),
    );
    expect(
      (await grepTool.execute({ pattern: 'parse\\(.*?\\)', path: 'multi.ts', output_mode: 'content' }, repo.context()))
        .text,
    ).toBe('No matches found');
    expect(
      (
        await grepTool.execute(
          { pattern: '^\\s+\\w', path: 'multi.ts', multiline: true, output_mode: 'count' },
          repo.context(),
        )
      ).text,
    ).toBe('multi.ts:2');
  });

  test('Grep: files, content with line numbers, counts, case, glob filter, head_limit', async () => {
    expect((await grepTool.execute({ pattern: 'parseConfig' }, repo.context())).text).toBe(
      'Found 3 file(s)\nREADME.md\nsrc/a.ts\nsrc/b.ts',
    );
    expect(
      (await grepTool.execute({ pattern: 'parseConfig', glob: '*.ts', output_mode: 'content' }, repo.context())).text,
    ).toBe('src/a.ts:1:export const parseConfig = 1;\nsrc/b.ts:1:import { parseConfig } from "./a";');
    expect(
      (
        await grepTool.execute(
          { pattern: 'parseconfig', '-i': true, output_mode: 'count', path: 'src' },
          repo.context(),
        )
      ).text,
    ).toBe('src/a.ts:1\nsrc/b.ts:2');
    const limited = await grepTool.execute({ pattern: 'parseConfig', head_limit: 1 }, repo.context());
    expect(limited.text).toContain('Results are capped at 1 entries (head_limit)');
    await expect(grepTool.execute({ pattern: '(' }, repo.context())).rejects.toThrow(/Invalid regular expression/);
  });

  test('path may name one file; a path that does not exist is named', async () => {
    expect(await grep({ pattern: 'PARSE', path: 'src/b.ts', output_mode: 'content' })).toBe('src/b.ts:2:PARSECONFIG');
    expect(await grep({ pattern: 'PARSE', path: join(repo.path, 'src/b.ts') })).toBe('Found 1 file(s)\nsrc/b.ts');
    await expect(grep({ pattern: 'x', path: 'lib' })).rejects.toThrow('Path does not exist: lib');
  });

  test('nothing found: "No files found" for paths and counts, "No matches found" for content', async () => {
    expect(await grep({ pattern: 'nowhere' })).toBe('No files found');
    expect(await grep({ pattern: 'nowhere', output_mode: 'count' })).toBe('No files found');
    expect(await grep({ pattern: 'nowhere', output_mode: 'content' })).toBe('No matches found');
  });

  test('"-n": false leaves the line numbers out', async () => {
    expect(await grep({ pattern: 'PARSE', path: 'src', output_mode: 'content', '-n': false })).toBe(
      'src/b.ts:PARSECONFIG',
    );
  });

  test('a glob with a slash is from the searched directory, one without matches names anywhere under it', async () => {
    repo.write('lib/src/c.ts', 'parseConfig\n');
    expect(await grep({ pattern: 'parseConfig', glob: 'src/*.ts' })).toBe('Found 2 file(s)\nsrc/a.ts\nsrc/b.ts');
    expect(await grep({ pattern: 'parseConfig', glob: '*.ts' })).toBe(
      'Found 3 file(s)\nlib/src/c.ts\nsrc/a.ts\nsrc/b.ts',
    );
    expect(await grep({ pattern: 'parseConfig', glob: '{*.md,**/c.ts}' })).toBe(
      'Found 2 file(s)\nREADME.md\nlib/src/c.ts',
    );
  });

  test('binary files and .git are skipped; lines over 500 characters are cut', async () => {
    repo.write('image.bin', Buffer.concat([Buffer.from('parseConfig'), Buffer.alloc(4)]));
    repo.write('.git/HEAD', 'parseConfig');
    expect(await grep({ pattern: 'parseConfig' })).toBe('Found 3 file(s)\nREADME.md\nsrc/a.ts\nsrc/b.ts');
    repo.write('wide.txt', `parseConfig${'z'.repeat(1000)}`);
    expect(await grep({ pattern: 'parseConfig', path: 'wide.txt', output_mode: 'content' })).toBe(
      `wide.txt:1:parseConfig${'z'.repeat(489)}…`,
    );
  });

  test('head_limit: the paths header says there were more, and each mode stops at the limit', async () => {
    expect(await grep({ pattern: 'parseConfig', head_limit: 2 })).toBe(
      'Found 2+ file(s)\nREADME.md\nsrc/a.ts\n(Results are capped at 2 entries (head_limit). Narrow the pattern, path or glob, or call again with offset: 2.)',
    );
    expect(await grep({ pattern: 'parseConfig', head_limit: 3 })).toBe(
      'Found 3 file(s)\nREADME.md\nsrc/a.ts\nsrc/b.ts',
    );
    expect((await grep({ pattern: '.', output_mode: 'content', head_limit: 1 })).split('\n')).toEqual([
      'README.md:1:parseConfig docs',
      '(Results are capped at 1 entries (head_limit). Narrow the pattern, path or glob, or call again with offset: 1.)',
    ]);
  });

  test("head_limit defaults to 250 entries (Claude Code's), and 0 means all of them", async () => {
    repo.write('many.txt', Array.from({ length: 300 }, (_, index) => `hit ${index}`).join('\n'));
    const byDefault = (await grep({ pattern: 'hit', path: 'many.txt', output_mode: 'content' })).split('\n');
    expect(byDefault).toHaveLength(251);
    expect(byDefault[249]).toBe('many.txt:250:hit 249');
    expect(byDefault[250]).toContain('Results are capped at 250 entries (head_limit)');
    const all = (await grep({ pattern: 'hit', path: 'many.txt', output_mode: 'content', head_limit: 0 })).split('\n');
    expect(all).toHaveLength(300);
    expect(all[299]).toBe('many.txt:300:hit 299');
  });

  test('offset skips the first entries before head_limit, in every mode; past the end it says how many there were', async () => {
    expect(await grep({ pattern: 'parseConfig', offset: 1, head_limit: 1 })).toBe(
      'Found 1+ file(s)\nsrc/a.ts\n(Results are capped at 1 entries (head_limit). Narrow the pattern, path or glob, or call again with offset: 2.)',
    );
    expect(await grep({ pattern: 'parseConfig', offset: 2 })).toBe('Found 1 file(s)\nsrc/b.ts');
    expect(await grep({ pattern: 'parseconfig', '-i': true, output_mode: 'count', path: 'src', offset: 1 })).toBe(
      'src/b.ts:2',
    );
    expect(await grep({ pattern: 'parseConfig', offset: 3 })).toBe(
      'No more results at offset 3: the search found 3 entries.',
    );
    expect(await grep({ pattern: 'nowhere', offset: 3 })).toBe('No files found');
  });

  test('"-o" prints each match alone, one a line (content mode); "context" is "-C"', async () => {
    repo.write('ids.txt', 'id=12 and id=345\nnone\nid=6\n');
    expect(await grep({ pattern: 'id=\\d+', path: 'ids.txt', output_mode: 'content', '-o': true })).toBe(
      ['ids.txt:1:id=12', 'ids.txt:1:id=345', 'ids.txt:3:id=6'].join('\n'),
    );
    expect(
      await grep({
        pattern: 'id=\\d+',
        path: 'ids.txt',
        output_mode: 'content',
        '-o': true,
        '-n': false,
        head_limit: 2,
      }),
    ).toBe(
      'ids.txt:id=12\nids.txt:id=345\n(Results are capped at 2 entries (head_limit). Narrow the pattern, path or glob, or call again with offset: 2.)',
    );
    expect(
      await grep({ pattern: 'id=\\d+\\nnone', path: 'ids.txt', output_mode: 'content', '-o': true, multiline: true }),
    ).toBe('ids.txt:1:id=345\nnone');
    // Other modes ignore it.
    expect(await grep({ pattern: 'id=', path: 'ids.txt', output_mode: 'count', '-o': true })).toBe('ids.txt:2');
    expect(await grep({ pattern: 'none', path: 'ids.txt', output_mode: 'content', context: 1 })).toBe(
      ['ids.txt-1-id=12 and id=345', 'ids.txt:2:none', 'ids.txt-3-id=6'].join('\n'),
    );
    expect(await grep({ pattern: 'none', path: 'ids.txt', output_mode: 'content', context: 1, '-A': 0 })).toBe(
      ['ids.txt-1-id=12 and id=345', 'ids.txt:2:none'].join('\n'),
    );
  });

  test('its summary names path and glob; its input is checked field by field', () => {
    expect(grepTool.summarize({ pattern: 'TODO', path: 'src', glob: '*.ts' })).toBe('Grep TODO in src (*.ts)');
    expect(inputError('Grep', { pattern: 'x', output_mode: 'content', '-C': 100, head_limit: 5 })).toBeUndefined();
    expect(inputError('Grep', {})).toContain('the required parameter `pattern` is missing');
    expect(inputError('Grep', { pattern: 'x', output_mode: 'lines' })).toContain('- `output_mode`:');
    expect(inputError('Grep', { pattern: 'x', '-A': 101 })).toContain('- `-A`:');
    expect(inputError('Grep', { pattern: 'x', head_limit: 0, offset: 0, '-o': true, context: 2 })).toBeUndefined();
    expect(inputError('Grep', { pattern: 'x', head_limit: -1 })).toContain('- `head_limit`:');
    expect(inputError('Grep', { pattern: 'x', offset: 1.5 })).toContain('- `offset`:');
    expect(inputError('Grep', { pattern: 'x', '-r': true })).toContain('unexpected parameter(s): -r');
  });
});
