/** Notebooks as Claude Code shows them: cells with ids, types and outputs; cells found by id or index. */
import {
  cellIdOf,
  findCell,
  isNotebookPath,
  type Notebook,
  parseNotebook,
  renderNotebook,
} from '../../../../src/activities/tools/notebook';
import { ToolError } from '../../../../src/activities/tools/tool';

const notebook = (cells: Notebook['cells'], language = 'python'): Notebook => ({
  nbformat: 4,
  nbformat_minor: 4,
  metadata: { language_info: { name: language } },
  cells,
});

test('each cell with its id (or cell-N), its type unless code, its language unless Python, then its outputs', () => {
  const rendered = renderNotebook(
    notebook(
      [
        { cell_type: 'markdown', source: '# Notes' },
        {
          cell_type: 'code',
          source: ['x <- 1\n', 'x'],
          outputs: [
            { output_type: 'execute_result', data: { 'text/plain': ['[1] 1'] } },
            { output_type: 'display_data', data: { 'image/png': 'iVBO\nRw0=', 'text/plain': '<Figure>' } },
            {
              output_type: 'error',
              ename: 'ValueError',
              evalue: 'bad',
              traceback: ['\u001b[31mTraceback\u001b[0m', 'line 1'],
            },
          ],
        },
        { cell_type: 'raw', id: 'r1', source: 'raw text' },
      ],
      'R',
    ),
  );
  expect(rendered.text).toBe(
    [
      '<cell id="cell-0"><cell_type>markdown</cell_type># Notes</cell id="cell-0">',
      '',
      '<cell id="cell-1"><language>R</language>x <- 1\nx</cell id="cell-1">',
      '[1] 1',
      '<Figure>',
      'ValueError: bad\nTraceback\nline 1',
      '',
      '<cell id="r1"><cell_type>raw</cell_type>raw text</cell id="r1">',
    ].join('\n'),
  );
  expect(rendered.images).toEqual([{ mediaType: 'image/png', base64: 'iVBORw0=' }]);
});

test('a long output is cut, saying how much', () => {
  const { text } = renderNotebook(
    notebook([{ cell_type: 'code', source: 'big', outputs: [{ output_type: 'stream', text: 'y'.repeat(10_050) }] }]),
  );
  expect(text).toContain('[… 50 characters of output cut]');
});

test('cells are found by id, or by cell-N in notebooks without ids', () => {
  const book = notebook([
    { cell_type: 'code', id: 'abc', source: '' },
    { cell_type: 'code', source: '' },
  ]);
  expect(findCell(book, 'abc')).toBe(0);
  expect(findCell(book, 'cell-1')).toBe(1);
  expect(findCell(book, 'cell-2')).toBe(-1);
  expect(findCell(book, 'nope')).toBe(-1);
  expect(cellIdOf(book.cells[1]!, 1)).toBe('cell-1');
});

test('a file that is not a notebook is a ToolError naming it', () => {
  expect(() => parseNotebook('{', 'a.ipynb')).toThrow(ToolError);
  expect(() => parseNotebook('{"cells": 3}', 'a.ipynb')).toThrow(
    'a.ipynb is not a valid notebook: it has no list of cells.',
  );
  expect(isNotebookPath('x/A.IPYNB')).toBe(true);
  expect(isNotebookPath('a.py')).toBe(false);
});
