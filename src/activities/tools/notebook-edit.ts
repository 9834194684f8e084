import { z } from 'zod';
import { assertReadAndUnchanged, fileToChange, writeFileOnce } from './file-effects';
import { type Notebook, type NotebookCell, cellIdOf, findCell, isNotebookPath, parseNotebook } from './notebook';
import { displayPath, sha256 } from './paths';
import { settingsApproval } from './settings-guard';
import { defineTool, ToolError } from './tool';

/**
 * NotebookEdit, as Claude Code has it: replaces, inserts or deletes one cell of a Jupyter
 * notebook. The same rules as Edit: the session read the notebook and it has not changed since,
 * a person approves the change where Edit's would be asked, the write is journaled and atomic.
 */
export const notebookEditTool = defineTool({
  name: 'NotebookEdit',
  description: [
    'Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb).',
    '- Read the notebook first: it shows each cell\'s id. cell_id names the cell (or "cell-N" for the N-th, from 0).',
    '- edit_mode "replace" (default) sets the cell\'s source (and its type, with cell_type); a code cell\'s outputs are cleared.',
    '- edit_mode "insert" adds a cell of cell_type (required) after cell_id, or first without it; "delete" removes the cell.',
  ].join('\n'),
  schema: z
    .object({
      notebook_path: z.string().min(1).describe('The path of the Jupyter notebook to edit'),
      cell_id: z
        .string()
        .optional()
        .describe('The cell to edit; with insert, the new cell goes after it (first without it)'),
      new_source: z.string().describe('The new source for the cell'),
      cell_type: z
        .enum(['code', 'markdown'])
        .optional()
        .describe("The cell's type; defaults to the current type; required with insert"),
      edit_mode: z.enum(['replace', 'insert', 'delete']).optional().describe('replace (default), insert or delete'),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: true,
  // acceptEdits lets it through inside the workdir, and Claude Code's `Edit(…)` rules cover it, as they cover Write.
  editsFiles: true,
  ruleNames: ['Edit'],
  subject: (input) => input.notebook_path,
  approvalFacts: settingsApproval,
  summarize: (input) => `NotebookEdit ${input.notebook_path}`,
  targetPath: (input) => input.notebook_path,
  async execute(input, context) {
    const { path, current, replayed } = await fileToChange(context, input.notebook_path);
    if (replayed) return replayed;
    const shown = displayPath(context.workdir, path);
    if (!isNotebookPath(path))
      throw new ToolError('File must be a Jupyter notebook (.ipynb file). For editing other file types, use Edit.');
    if (current === null) throw new ToolError(`Notebook file does not exist: ${shown}`);
    assertReadAndUnchanged(context, path, current, 'editing');
    const notebook = parseNotebook(current, shown);
    const message = applyEdit(notebook, input, sha256(context.callKey).slice(0, 8));
    // Jupyter's own layout: one-space indentation and a final newline.
    return writeFileOnce(context, path, current, `${JSON.stringify(notebook, null, 1)}\n`, message);
  },
});

type NotebookEditInput = z.infer<typeof notebookEditTool.schema>;

/** Changes the notebook in place; what the model is told. `newId`: the call's own, the same on a retry. */
export function applyEdit(notebook: Notebook, input: NotebookEditInput, newId: string): string {
  const mode = input.edit_mode ?? 'replace';
  const at = input.cell_id === undefined ? -1 : findCell(notebook, input.cell_id);
  if (input.cell_id !== undefined && at < 0)
    throw new ToolError(`Cell with ID "${input.cell_id}" not found in notebook.`);
  if (mode === 'insert') {
    if (!input.cell_type) throw new ToolError('cell_type is required when inserting a cell (code or markdown).');
    const cell: NotebookCell = { cell_type: input.cell_type, metadata: {}, source: input.new_source };
    // Cell ids exist from nbformat 4.5 on; older notebooks name cells by their index.
    if ((notebook.nbformat ?? 0) > 4 || ((notebook.nbformat ?? 0) === 4 && (notebook.nbformat_minor ?? 0) >= 5))
      cell.id = newId;
    if (input.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    notebook.cells.splice(at + 1, 0, cell);
    return `Inserted cell ${cellIdOf(cell, at + 1)} with ${input.new_source}`;
  }
  if (at < 0) throw new ToolError(`cell_id is required to ${mode} a cell.`);
  const id = cellIdOf(notebook.cells[at]!, at);
  if (mode === 'delete') {
    notebook.cells.splice(at, 1);
    return `Deleted cell ${id}`;
  }
  const cell = notebook.cells[at]!;
  cell.source = input.new_source;
  if (input.cell_type && input.cell_type !== cell.cell_type) {
    cell.cell_type = input.cell_type;
    if (input.cell_type === 'markdown') {
      delete cell.outputs;
      delete cell.execution_count;
    }
  }
  // The old outputs belong to the old source.
  if (cell.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
  return `Updated cell ${id} with ${input.new_source}`;
}
