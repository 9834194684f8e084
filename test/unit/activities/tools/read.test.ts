/** Read on a real filesystem: text as `cat -n`, ranges, media, and what it refuses. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../../../../src/activities/tools/paths';
import { readTool } from '../../../../src/activities/tools/read';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { ToolError } from '../../../../src/activities/tools/tool';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('read');
});

describe('Read', () => {
  test('numbers lines like cat -n and reports the file state', async () => {
    repo.write('a.txt', 'alpha\nbeta\n');
    const output = await readTool.execute({ file_path: 'a.txt' }, repo.context());
    expect(output.text).toBe('     1\talpha\n     2\tbeta');
    expect(output.fileState).toEqual({ path: join(repo.path, 'a.txt'), sha256: sha256('alpha\nbeta\n') });
  });

  test('offset and limit select lines and say what is shown; long lines are cut', async () => {
    repo.write('long.txt', Array.from({ length: 3000 }, (_, index) => `line ${index + 1}`).join('\n'));
    const all = await readTool.execute({ file_path: 'long.txt' }, repo.context());
    expect(all.text.split('\n')[1999]).toBe('  2000\tline 2000');
    expect(all.text).toContain('(Showing lines 1-2000 of 3000.');
    const part = await readTool.execute({ file_path: 'long.txt', offset: 2999, limit: 5 }, repo.context());
    expect(part.text.split('\n').slice(0, 2)).toEqual(['  2999\tline 2999', '  3000\tline 3000']);
    repo.write('wide.txt', 'x'.repeat(5000));
    expect((await readTool.execute({ file_path: 'wide.txt' }, repo.context())).text).toMatch(
      /x{2000}… \[line truncated\]$/,
    );
  });

  test('refuses paths outside the workdir, also through symlinks', async () => {
    writeFileSync(join(repo.path, '..', 'secret.txt'), 'secret');
    symlinkSync(join(repo.path, '..', 'secret.txt'), join(repo.path, 'link.txt'));
    await expect(readTool.execute({ file_path: '../secret.txt' }, repo.context())).rejects.toThrow(
      /outside the working directory/,
    );
    await expect(readTool.execute({ file_path: join(repo.path, '..', 'secret.txt') }, repo.context())).rejects.toThrow(
      /outside/,
    );
    await expect(readTool.execute({ file_path: 'link.txt' }, repo.context())).rejects.toThrow(/outside/);
  });

  test('a missing file is an error the model can act on, naming the file', async () => {
    const read = readTool.execute({ file_path: 'src/missing.ts' }, repo.context());
    await expect(read).rejects.toThrow('File does not exist: src/missing.ts');
    await expect(read).rejects.toBeInstanceOf(ToolError);
  });

  test('an empty file says so, and is known as read (it may be written next)', async () => {
    repo.write('empty.txt', '');
    expect(await readTool.execute({ file_path: 'empty.txt' }, repo.context())).toEqual({
      text: '<system-reminder>The file exists but is empty.</system-reminder>',
      fileState: { path: join(repo.path, 'empty.txt'), sha256: sha256('') },
    });
  });

  test('an offset past the end says how many lines the file has', async () => {
    repo.write('two.txt', 'one\ntwo\n');
    await expect(readTool.execute({ file_path: 'two.txt', offset: 3 }, repo.context())).rejects.toThrow(
      'offset 3 is past the end of the file, which has 2 lines.',
    );
    expect((await readTool.execute({ file_path: 'two.txt', offset: 2 }, repo.context())).text).toBe(
      '     2\ttwo\n\n(Showing lines 2-2 of 2. Use offset and limit to read other parts.)',
    );
  });

  test('more than 100,000 characters at once is refused, asking for a range', async () => {
    repo.write('dense.txt', `${'y'.repeat(1999)}\n`.repeat(60));
    await expect(readTool.execute({ file_path: 'dense.txt' }, repo.context())).rejects.toThrow(
      /more than 100000 can be returned at once\. Use offset and limit/,
    );
    const part = await readTool.execute({ file_path: 'dense.txt', limit: 10 }, repo.context());
    expect(part.text).toContain('(Showing lines 1-10 of 60.');
  });

  test('an absolute path inside the workdir and a link inside it read the file; the state names the real file', async () => {
    repo.write('src/a.ts', 'export {};\n');
    symlinkSync('src/a.ts', join(repo.path, 'alias.ts'));
    const state = { path: join(repo.path, 'src/a.ts'), sha256: sha256('export {};\n') };
    expect((await readTool.execute({ file_path: join(repo.path, 'src/a.ts') }, repo.context())).fileState).toEqual(
      state,
    );
    expect((await readTool.execute({ file_path: 'alias.ts' }, repo.context())).fileState).toEqual(state);
  });

  test('a directory or a binary file is refused, saying what it is', async () => {
    mkdirSync(join(repo.path, 'src'));
    await expect(readTool.execute({ file_path: 'src' }, repo.context())).rejects.toThrow(
      'src is a directory. Use Glob or Bash (ls) to list it.',
    );
    repo.write('blob.bin', Buffer.from([0x61, 0x00, 0x62]));
    await expect(readTool.execute({ file_path: 'blob.bin' }, repo.context())).rejects.toThrow(
      'blob.bin looks like a binary file (3 bytes) and cannot be read as text.',
    );
  });

  test('its input: file_path required and not empty, offset and limit positive integers, nothing else', () => {
    expect(inputError('Read', { file_path: 'a.txt', offset: 1, limit: 10 })).toBeUndefined();
    expect(inputError('Read', {})).toContain('the required parameter `file_path` is missing');
    expect(inputError('Read', { file_path: '' })).toContain('- `file_path`:');
    expect(inputError('Read', { file_path: 'a.txt', offset: 0 })).toContain('- `offset`:');
    expect(inputError('Read', { file_path: 'a.txt', limit: 1.5 })).toContain('- `limit`:');
    expect(inputError('Read', { file_path: 'a.txt', path: 'b.txt' })).toContain('unexpected parameter(s): path');
  });
});

describe('Read of images and PDFs', () => {
  test('shows pictures and PDFs to the model as media, within the size limits', async () => {
    writeFileSync(join(repo.path, 'shot.png'), Buffer.from('89504e470d0a1a0a0000', 'hex'));
    const image = await readTool.execute({ file_path: 'shot.png' }, repo.context());
    expect(image.text).toBe('Image shot.png (image/png, 1 KB), shown below.');
    expect(image.media).toEqual([
      { kind: 'image', mediaType: 'image/png', base64: 'iVBORw0KGgoAAA==', estimatedChars: 6400 },
    ]);
    writeFileSync(join(repo.path, 'doc.pdf'), '%PDF-1.4 tiny');
    expect((await readTool.execute({ file_path: 'doc.pdf' }, repo.context())).media).toMatchObject([
      { kind: 'document', mediaType: 'application/pdf' },
    ]);
    writeFileSync(join(repo.path, 'huge.jpg'), Buffer.alloc(4_000_000));
    await expect(readTool.execute({ file_path: 'huge.jpg' }, repo.context())).rejects.toThrow(
      'huge.jpg is 4.0 MB; images of at most 3.75 MB can be shown',
    );
  });

  test('the extension decides, in any case; a PDF is shown up to 10 MB and costs about its size in context', async () => {
    repo.write('SHOT.JPG', Buffer.from([0xff, 0xd8, 0xff, 0x00]));
    expect((await readTool.execute({ file_path: 'SHOT.JPG' }, repo.context())).media).toMatchObject([
      { kind: 'image', mediaType: 'image/jpeg', base64: '/9j/AA==' },
    ]);
    repo.write('doc.pdf', '%PDF-1.4 tiny');
    expect((await readTool.execute({ file_path: 'doc.pdf' }, repo.context())).media).toMatchObject([
      { estimatedChars: 13 },
    ]);
    repo.write('big.pdf', Buffer.alloc(10_500_000));
    await expect(readTool.execute({ file_path: 'big.pdf' }, repo.context())).rejects.toThrow(
      'big.pdf is 10.5 MB; PDFs of at most 10 MB can be shown. Use a smaller version.',
    );
  });
});

describe("Read's Claude Code fields: pages, allow_large, notebooks", () => {
  const plan = (input: Record<string, unknown>) =>
    TOOLS.plan({ id: 'toolu_1', name: 'Read', input }, repo.path, ['Read']).then((planned) => planned.plan);

  test('pages on a PDF: the whole PDF is shown, the pages asked for named; a bad range or a non-PDF is answered first', async () => {
    repo.write('doc.pdf', '%PDF-1.4 tiny');
    const read = await readTool.execute({ file_path: 'doc.pdf', pages: '3-5' }, repo.context());
    expect(read.text).toContain('Pages are not cut out here: the whole PDF is shown; look at pages 3-5.');
    expect(read.media).toMatchObject([{ kind: 'document', mediaType: 'application/pdf' }]);
    expect(await plan({ file_path: 'doc.pdf', pages: '3' })).toMatchObject({ ok: true });
    expect(await plan({ file_path: 'doc.pdf', pages: '1-20' })).toMatchObject({ ok: true });
    expect(await plan({ file_path: 'doc.pdf', pages: '1-21' })).toMatchObject({
      ok: false,
      errorText: '<tool_use_error>pages "1-21" names 21 pages; at most 20 can be read at once.</tool_use_error>',
    });
    for (const pages of ['0', '5-3', 'two', '1,3'])
      expect(await plan({ file_path: 'doc.pdf', pages })).toMatchObject({
        ok: false,
        errorText: expect.stringContaining('is not a page range'),
      });
    expect(await plan({ file_path: 'a.txt', pages: '1' })).toMatchObject({
      ok: false,
      errorText: expect.stringContaining('pages applies to PDF files only'),
    });
  });

  test('allow_large reads past the 2000-line default; the 100,000-character limit still holds', async () => {
    repo.write('long.txt', Array.from({ length: 2500 }, (_, index) => `line ${index + 1}`).join('\n'));
    const byDefault = await readTool.execute({ file_path: 'long.txt' }, repo.context());
    expect(byDefault.text).toContain('(Showing lines 1-2000 of 2500.');
    const large = await readTool.execute({ file_path: 'long.txt', allow_large: true }, repo.context());
    expect(large.text.split('\n')).toHaveLength(2500);
    expect(large.text).not.toContain('Showing lines');
    repo.write('wide.txt', Array.from({ length: 3000 }, () => 'x'.repeat(60)).join('\n'));
    await expect(readTool.execute({ file_path: 'wide.txt', allow_large: true }, repo.context())).rejects.toThrow(
      /more than 100000 can be returned at once/,
    );
  });

  test('a notebook shows its cells with ids and outputs, and is known as read', async () => {
    const notebook = JSON.stringify({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { language_info: { name: 'python' } },
      cells: [
        { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'text'] },
        {
          cell_type: 'code',
          id: 'calc',
          metadata: {},
          execution_count: 1,
          source: 'print(1 + 1)',
          outputs: [{ output_type: 'stream', name: 'stdout', text: ['2\n'] }],
        },
      ],
    });
    repo.write('nb.ipynb', notebook);
    const read = await readTool.execute({ file_path: 'nb.ipynb' }, repo.context());
    expect(read.text).toBe(
      '<cell id="intro"><cell_type>markdown</cell_type># Title\ntext</cell id="intro">\n\n<cell id="calc">print(1 + 1)</cell id="calc">\n2\n',
    );
    expect(read.fileState).toEqual({ path: join(repo.path, 'nb.ipynb'), sha256: sha256(notebook) });
    // offset or limit: its JSON, as lines.
    expect((await readTool.execute({ file_path: 'nb.ipynb', offset: 1 }, repo.context())).text).toContain('1\t{');
  });

  test("its input is Claude Code's: pages a string, allow_large a boolean", () => {
    expect(inputError('Read', { file_path: 'a.pdf', pages: '1-5', allow_large: true })).toBeUndefined();
    expect(inputError('Read', { file_path: 'a.pdf', pages: 3 })).toContain('- `pages`:');
    expect(inputError('Read', { file_path: 'a.txt', allow_large: 'yes' })).toContain('- `allow_large`:');
  });
});
