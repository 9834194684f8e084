/** NotebookEdit on a real filesystem: Edit's rules (read first, unchanged since, applied once), one cell at a time. */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { notebookEditTool } from '../../../../src/activities/tools/notebook-edit';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

const cells = [
  { cell_type: 'markdown', id: 'intro', metadata: {}, source: '# Title' },
  {
    cell_type: 'code',
    id: 'calc',
    metadata: {},
    execution_count: 3,
    source: 'print(1)',
    outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
  },
];

beforeEach(() => {
  repo = toolWorkdir('notebook-edit');
  repo.write('nb.ipynb', JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }, null, 1));
});

const edit = (input: Parameters<typeof notebookEditTool.execute>[0], known = true) =>
  notebookEditTool.execute(input, repo.context(known ? { knownFiles: repo.known('nb.ipynb') } : {}));
const cellsNow = () => (JSON.parse(repo.read('nb.ipynb')) as { cells: Record<string, unknown>[] }).cells;

describe('NotebookEdit', () => {
  test("replace sets a cell's source and clears a code cell's outputs; the file stays Jupyter's layout", async () => {
    const output = await edit({ notebook_path: 'nb.ipynb', cell_id: 'calc', new_source: 'print(2)' });
    expect(output.text).toBe('Updated cell calc with print(2)');
    expect(cellsNow()[1]).toEqual({
      cell_type: 'code',
      id: 'calc',
      metadata: {},
      execution_count: null,
      source: 'print(2)',
      outputs: [],
    });
    expect(repo.read('nb.ipynb')).toMatch(/^\{\n "nbformat": 4,\n "nbformat_minor": 5,/);
    expect(repo.read('nb.ipynb').endsWith('}\n')).toBe(true);
    expect(output.fileState?.path).toContain('nb.ipynb');
  });

  test('replace with cell_type changes the type; a cell is also found as cell-N', async () => {
    await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', new_source: '## Now prose', cell_type: 'markdown' });
    expect(cellsNow()[1]).toEqual({ cell_type: 'markdown', id: 'calc', metadata: {}, source: '## Now prose' });
  });

  test('insert adds a cell after cell_id, or first; it needs cell_type; ids from nbformat 4.5 on', async () => {
    const after = await edit({
      notebook_path: 'nb.ipynb',
      cell_id: 'intro',
      new_source: 'x = 1',
      cell_type: 'code',
      edit_mode: 'insert',
    });
    const inserted = cellsNow()[1]!;
    expect(inserted).toMatchObject({ cell_type: 'code', source: 'x = 1', outputs: [], execution_count: null });
    expect(inserted.id).toMatch(/^[0-9a-f]{8}$/);
    expect(after.text).toBe(`Inserted cell ${String(inserted.id)} with x = 1`);
    await expect(edit({ notebook_path: 'nb.ipynb', new_source: 'x', edit_mode: 'insert' })).rejects.toThrow(
      'cell_type is required when inserting a cell',
    );
    await edit({ notebook_path: 'nb.ipynb', new_source: '# First', cell_type: 'markdown', edit_mode: 'insert' });
    expect(cellsNow().map((cell) => cell.source)).toEqual(['# First', '# Title', 'x = 1', 'print(1)']);
  });

  test('delete removes the cell; an unknown cell is named', async () => {
    expect(
      (await edit({ notebook_path: 'nb.ipynb', cell_id: 'intro', new_source: '', edit_mode: 'delete' })).text,
    ).toBe('Deleted cell intro');
    expect(cellsNow().map((cell) => cell.id)).toEqual(['calc']);
    await expect(edit({ notebook_path: 'nb.ipynb', cell_id: 'gone', new_source: '' })).rejects.toThrow(
      'Cell with ID "gone" not found in notebook.',
    );
    await expect(edit({ notebook_path: 'nb.ipynb', new_source: 'x' })).rejects.toThrow(
      'cell_id is required to replace a cell.',
    );
  });

  test("Edit's rules: read it first, unchanged since; only notebooks; a retry is applied once", async () => {
    await expect(edit({ notebook_path: 'nb.ipynb', cell_id: 'calc', new_source: 'x' }, false)).rejects.toThrow(
      'File has not been read yet',
    );
    const known = repo.known('nb.ipynb');
    repo.write('nb.ipynb', repo.read('nb.ipynb').replace('print(1)', 'print(9)'));
    await expect(
      notebookEditTool.execute(
        { notebook_path: 'nb.ipynb', cell_id: 'calc', new_source: 'x' },
        repo.context({ knownFiles: known }),
      ),
    ).rejects.toThrow('File has been modified since it was last read');
    repo.write('a.py', 'x');
    await expect(
      notebookEditTool.execute(
        { notebook_path: 'a.py', new_source: 'x' },
        repo.context({ knownFiles: repo.known('a.py') }),
      ),
    ).rejects.toThrow('File must be a Jupyter notebook (.ipynb file)');

    const context = repo.context({ knownFiles: repo.known('nb.ipynb') });
    const input = {
      notebook_path: 'nb.ipynb',
      new_source: 'y = 2',
      cell_type: 'code' as const,
      edit_mode: 'insert' as const,
    };
    const first = await notebookEditTool.execute(input, context);
    const retried = await notebookEditTool.execute(input, { ...context, attempt: 2 });
    expect(retried.text).toBe(first.text);
    expect(cellsNow().filter((cell) => cell.source === 'y = 2')).toHaveLength(1);
  });

  test('planned as Edit is: approval in ask mode, a change to files, one at a time', async () => {
    const planned = await TOOLS.plan(
      { id: 'toolu_1', name: 'NotebookEdit', input: { notebook_path: 'nb.ipynb', cell_id: 'calc', new_source: 'x' } },
      repo.path,
      ['NotebookEdit'],
    );
    expect(planned.plan).toMatchObject({
      ok: true,
      concurrencySafe: false,
      summary: 'NotebookEdit nb.ipynb',
      rules: { needsApproval: true, subject: 'nb.ipynb', changesFiles: true },
    });
    expect(inputError('NotebookEdit', { notebook_path: 'nb.ipynb', new_source: 'x', edit_mode: 'move' })).toContain(
      '- `edit_mode`:',
    );
    expect(inputError('NotebookEdit', { notebook_path: 'nb.ipynb' })).toContain(
      'the required parameter `new_source` is missing',
    );
  });
});
