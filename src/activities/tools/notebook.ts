/**
 * Jupyter notebooks (`.ipynb`) as Claude Code shows and edits them: Read renders each cell as
 * `<cell id="…">source</cell id="…">` (a markdown or raw cell says its type first, as
 * `<cell_type>markdown</cell_type>`), followed by its outputs (text, errors, images);
 * NotebookEdit finds a cell by its `id`, or by `cell-<index>` for notebooks older than cell ids
 * (nbformat 4.5). Pure functions over the file's text: the tools do the reading and writing.
 */
import { ToolError } from './tool';

export interface NotebookCell {
  cell_type: string;
  id?: string;
  source: string | string[];
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

interface NotebookOutput {
  output_type?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

export interface Notebook {
  cells: NotebookCell[];
  metadata?: { language_info?: { name?: string } } & Record<string, unknown>;
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

/** An output's text beyond this is cut (a cell printing a whole data frame). */
const OUTPUT_MAX_CHARS = 10_000;
/** Image outputs shown to the model at most, per read. */
const MAX_IMAGES = 10;

export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb');
}

/** The notebook in a file's text, or a ToolError saying why it is not one. */
export function parseNotebook(text: string, shown: string): Notebook {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ToolError(`${shown} is not a valid notebook (JSON): ${(error as Error).message}`);
  }
  const cells = (parsed as { cells?: unknown } | null)?.cells;
  if (!Array.isArray(cells) || cells.some((cell) => typeof cell !== 'object' || cell === null))
    throw new ToolError(`${shown} is not a valid notebook: it has no list of cells.`);
  return parsed as Notebook;
}

/** A cell's id as the model uses it: its own, or `cell-<index>` when the notebook has none. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === 'string' && cell.id ? cell.id : `cell-${index}`;
}

/** The index of the cell a model's `cell_id` names, or -1. */
export function findCell(notebook: Notebook, cellId: string): number {
  const byId = notebook.cells.findIndex((cell) => cell.id === cellId);
  if (byId >= 0) return byId;
  const index = /^cell-(\d+)$/.exec(cellId);
  return index && Number(index[1]) < notebook.cells.length ? Number(index[1]) : -1;
}

export function sourceText(source: unknown): string {
  return Array.isArray(source) ? source.join('') : typeof source === 'string' ? source : '';
}

export interface RenderedNotebook {
  text: string;
  images: { mediaType: string; base64: string }[];
}

/** The notebook as Read shows it: its cells in order, each with its outputs. */
export function renderNotebook(notebook: Notebook): RenderedNotebook {
  const language = notebook.metadata?.language_info?.name ?? 'python';
  const images: RenderedNotebook['images'] = [];
  const parts = notebook.cells.map((cell, index) => {
    const id = cellIdOf(cell, index);
    const type = cell.cell_type === 'code' ? '' : `<cell_type>${cell.cell_type}</cell_type>`;
    const lang = cell.cell_type === 'code' && language !== 'python' ? `<language>${language}</language>` : '';
    const rendered = [`<cell id="${id}">${type}${lang}${sourceText(cell.source)}</cell id="${id}">`];
    for (const output of cell.cell_type === 'code' ? (cell.outputs ?? []) : []) {
      const text = outputText(output);
      if (text) rendered.push(text);
      const image = outputImage(output);
      if (image && images.length < MAX_IMAGES) images.push(image);
      else if (image) rendered.push('[image output not shown: too many images in this notebook]');
    }
    return rendered.join('\n');
  });
  return { text: parts.join('\n\n'), images };
}

function outputText(output: NotebookOutput): string {
  let text = '';
  if (output.output_type === 'stream') text = sourceText(output.text);
  else if (output.output_type === 'error')
    text = [`${output.ename ?? 'Error'}: ${output.evalue ?? ''}`, ...(output.traceback ?? [])].join('\n');
  else if (output.data && 'text/plain' in output.data) text = sourceText(output.data['text/plain']);
  // Terminal colours (tracebacks are full of them) say nothing to a model.
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.length > OUTPUT_MAX_CHARS
    ? `${plain.slice(0, OUTPUT_MAX_CHARS)}\n[… ${plain.length - OUTPUT_MAX_CHARS} characters of output cut]`
    : plain;
}

function outputImage(output: NotebookOutput): { mediaType: string; base64: string } | undefined {
  for (const mediaType of ['image/png', 'image/jpeg']) {
    const data = output.data?.[mediaType];
    if (typeof data === 'string' || Array.isArray(data))
      return { mediaType, base64: sourceText(data).replace(/\s/g, '') };
  }
  return undefined;
}
