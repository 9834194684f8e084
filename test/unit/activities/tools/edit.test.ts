/** Edit on a real filesystem: exact, unique replacements of files read, retries applied once. */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { editTool } from '../../../../src/activities/tools/edit';
import { sha256 } from '../../../../src/activities/tools/paths';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('edit');
});

describe('Edit', () => {
  test('Edit: unique match, replace_all, literal $ patterns, identical strings', async () => {
    repo.write('a.js', 'let a = 1;\nlet b = a;\n');
    await expect(
      editTool.execute(
        { file_path: 'a.js', old_string: 'a', new_string: 'z' },
        repo.context({ knownFiles: repo.known('a.js') }),
      ),
    ).rejects.toThrow(/Found 2 matches/);
    await expect(
      editTool.execute(
        { file_path: 'a.js', old_string: 'q', new_string: 'z' },
        repo.context({ knownFiles: repo.known('a.js') }),
      ),
    ).rejects.toThrow(/not found/);
    await expect(
      editTool.execute(
        { file_path: 'a.js', old_string: 'b', new_string: 'b' },
        repo.context({ knownFiles: repo.known('a.js') }),
      ),
    ).rejects.toThrow(/No changes to make/);
    const output = await editTool.execute(
      { file_path: 'a.js', old_string: 'let b = a;', new_string: "let b = '$&';" },
      repo.context({ knownFiles: repo.known('a.js') }),
    );
    expect(readFileSync(join(repo.path, 'a.js'), 'utf8')).toBe("let a = 1;\nlet b = '$&';\n");
    expect(output.text).toContain("     2\tlet b = '$&';");
    await editTool.execute(
      { file_path: 'a.js', old_string: 'let', new_string: 'const', replace_all: true },
      repo.context({ knownFiles: repo.known('a.js') }),
    );
    expect(readFileSync(join(repo.path, 'a.js'), 'utf8')).toBe("const a = 1;\nconst b = '$&';\n");
  });

  test('a retried Edit whose first attempt already wrote the file reports success and applies nothing twice', async () => {
    repo.write('a.txt', 'count = 1\n');
    const knownFiles = repo.known('a.txt');
    const first = repo.context({ knownFiles, toolUseId: 'toolu_same' });
    const input = { file_path: 'a.txt', old_string: 'count = 1', new_string: 'count = 1 + 1' };
    const applied = await editTool.execute(input, first);
    // The worker "died" before Temporal recorded completion: the same call again, attempt 2.
    const retried = await editTool.execute(input, { ...first, attempt: 2 });
    expect(retried.text).toBe(applied.text);
    expect(retried.fileState).toEqual(applied.fileState);
    expect(readFileSync(join(repo.path, 'a.txt'), 'utf8')).toBe('count = 1 + 1\n');
    // Another call (another tool_use id) with the stale read-state is refused as usual.
    await expect(editTool.execute(input, repo.context({ knownFiles }))).rejects.toThrow(/modified since/);
  });

  test("a settings file that holds the repository's hooks is edited only with a person's approval", async () => {
    repo.write('.claude/settings.json', '{}');
    await expect(
      editTool.execute(
        { file_path: '.claude/settings.json', old_string: '{}', new_string: '{"hooks":{}}' },
        repo.context({ knownFiles: repo.known('.claude/settings.json') }),
      ),
    ).rejects.toThrow(/approval/);
  });

  test('an old_string found several times is refused with the count and how to proceed; the file stays as it was', async () => {
    repo.write('a.txt', 'x = 1\nx = 1\nx = 1\n');
    await expect(
      editTool.execute(
        { file_path: 'a.txt', old_string: 'x = 1', new_string: 'x = 2' },
        repo.context({ knownFiles: repo.known('a.txt') }),
      ),
    ).rejects.toThrow(
      'Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true.',
    );
    expect(repo.read('a.txt')).toBe('x = 1\nx = 1\nx = 1\n');
    const all = await editTool.execute(
      { file_path: 'a.txt', old_string: 'x = 1', new_string: 'x = 2', replace_all: true },
      repo.context({ knownFiles: repo.known('a.txt') }),
    );
    expect(all.text).toMatch(/^The file a\.txt has been updated \(3 occurrences replaced\)\./);
  });

  test('a file must have been read, and be unchanged since, before it is edited', async () => {
    repo.write('a.txt', 'one\n');
    const input = { file_path: 'a.txt', old_string: 'one', new_string: 'two' };
    await expect(editTool.execute(input, repo.context())).rejects.toThrow(
      'File has not been read yet. Read it first before editing it.',
    );
    const knownFiles = repo.known('a.txt');
    writeFileSync(join(repo.path, 'a.txt'), 'one, by the linter\n');
    await expect(editTool.execute(input, repo.context({ knownFiles }))).rejects.toThrow(
      /modified since it was last read.*Read it again before editing it\./,
    );
    expect(repo.read('a.txt')).toBe('one, by the linter\n');
  });

  test('a missing file: an empty old_string creates it, any other is refused naming the file', async () => {
    await expect(
      editTool.execute({ file_path: 'src/new.ts', old_string: 'x', new_string: 'y' }, repo.context()),
    ).rejects.toThrow('File does not exist: src/new.ts');
    const created = await editTool.execute(
      { file_path: 'src/new.ts', old_string: '', new_string: 'export {};\n' },
      repo.context(),
    );
    expect(created).toEqual({
      text: 'File created successfully at: src/new.ts',
      fileState: { path: join(repo.path, 'src/new.ts'), sha256: sha256('export {};\n') },
    });
    await expect(
      editTool.execute(
        { file_path: 'src/new.ts', old_string: '', new_string: 'again' },
        repo.context({ knownFiles: repo.known('src/new.ts') }),
      ),
    ).rejects.toThrow('old_string is empty but the file already exists.');
  });

  test('the result shows the change with three lines of context either side, numbered like cat -n', async () => {
    repo.write('ten.txt', Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n'));
    const output = await editTool.execute(
      { file_path: 'ten.txt', old_string: 'line 5', new_string: 'five\nand a half' },
      repo.context({ knownFiles: repo.known('ten.txt') }),
    );
    expect(output.text).toBe(
      [
        'The file ten.txt has been updated (1 occurrence replaced). A snippet of the result (`cat -n`):',
        '     2\tline 2',
        '     3\tline 3',
        '     4\tline 4',
        '     5\tfive',
        '     6\tand a half',
        '     7\tline 6',
        '     8\tline 7',
        '     9\tline 8',
      ].join('\n'),
    );
  });

  test('through a link inside the workdir the target is edited; a path outside is refused', async () => {
    repo.write('real.txt', 'before\n');
    symlinkSync('real.txt', join(repo.path, 'alias.txt'));
    const output = await editTool.execute(
      { file_path: 'alias.txt', old_string: 'before', new_string: 'after' },
      repo.context({ knownFiles: repo.known('real.txt') }),
    );
    expect(output.fileState?.path).toBe(join(repo.path, 'real.txt'));
    expect(repo.read('real.txt')).toBe('after\n');
    writeFileSync(join(repo.path, '..', 'outside.txt'), 'before\n');
    await expect(
      editTool.execute({ file_path: '../outside.txt', old_string: 'before', new_string: 'after' }, repo.context()),
    ).rejects.toThrow(/outside the working directory/);
    expect(readFileSync(join(repo.path, '..', 'outside.txt'), 'utf8')).toBe('before\n');
  });

  test('its input: file_path, old_string and new_string required; replace_all a boolean; nothing else', () => {
    expect(inputError('Edit', { file_path: 'a', old_string: 'x', new_string: 'y', replace_all: true })).toBeUndefined();
    expect(inputError('Edit', { file_path: 'a', old_string: 'x' })).toContain(
      'the required parameter `new_string` is missing',
    );
    expect(inputError('Edit', { file_path: 'a', new_string: 'y' })).toContain(
      'the required parameter `old_string` is missing',
    );
    expect(inputError('Edit', { file_path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' })).toContain(
      '- `replace_all`:',
    );
    expect(inputError('Edit', { file_path: 'a', old_string: 'x', new_string: 'y', line: 3 })).toContain(
      'unexpected parameter(s): line',
    );
  });
});
