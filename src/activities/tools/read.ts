import { extname } from 'node:path';
import { z } from 'zod';
import { formatBytes } from '../../workdir/read-regular';
import { isNotebookPath, parseNotebook, renderNotebook } from './notebook';
import { displayPath, inWorkdir, sha256 } from './paths';
import { defineTool, ToolError, type ToolOutput } from './tool';

/** Claude Code's values: lines read by default, and the length at which a line is cut. */
const READ_DEFAULT_LINE_LIMIT = 2000;
const READ_MAX_LINE_CHARS = 2000;
/** Above this, the model is asked to read a range instead (about 25,000 tokens, as Claude Code). */
const MAX_OUTPUT_CHARS = 100_000;
/** Text files above this are not loaded at all: Grep, or Bash's head, tail and sed, show their parts. */
export const READ_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Pictures and PDFs are shown to the model, as Claude Code's Read does, within the API's limits. */
const MEDIA: Record<string, { kind: 'image' | 'document'; mediaType: string }> = {
  '.png': { kind: 'image', mediaType: 'image/png' },
  '.jpg': { kind: 'image', mediaType: 'image/jpeg' },
  '.jpeg': { kind: 'image', mediaType: 'image/jpeg' },
  '.gif': { kind: 'image', mediaType: 'image/gif' },
  '.webp': { kind: 'image', mediaType: 'image/webp' },
  '.pdf': { kind: 'document', mediaType: 'application/pdf' },
};
/** The API takes images up to 5 MB of base64 (3.75 MB of file); PDFs are kept well inside a 32 MB request. */
const MAX_MEDIA_BYTES = { image: 3_750_000, document: 10_000_000 };
/** Context cost estimates: a large image is about 1,600 tokens; a PDF about a token per 4 bytes of file. */
const IMAGE_ESTIMATED_CHARS = 1_600 * 4;
/** Claude Code's limit on a `pages` range. */
const MAX_PDF_PAGES = 20;

export const readTool = defineTool({
  name: 'Read',
  description: [
    'Reads a file from the working directory. Images (png, jpg, gif, webp) and PDFs are shown to you as they are.',
    '- file_path may be absolute or relative to the working directory.',
    `- By default reads up to ${READ_DEFAULT_LINE_LIMIT} lines from the start; use offset (1-based line number) and limit for long files.`,
    '- allow_large: read the whole file (or the offset/limit range) past the line default, within the output limit.',
    '- Jupyter notebooks (.ipynb) show every cell with its id and outputs; change them with NotebookEdit.',
    `- pages ("3", "1-5"; at most ${MAX_PDF_PAGES}) names the PDF pages you want; the whole PDF is shown to you.`,
    `- Output is numbered like \`cat -n\`; lines longer than ${READ_MAX_LINE_CHARS} characters are cut.`,
    '- A file must be read before it can be edited or overwritten.',
  ].join('\n'),
  schema: z
    .object({
      file_path: z.string().min(1).describe('The path of the file to read'),
      offset: z.number().int().positive().optional().describe('The line number to start reading from (1-based)'),
      limit: z.number().int().positive().optional().describe('The number of lines to read'),
      pages: z
        .string()
        .optional()
        .describe(`Page range for PDF files (e.g. "1-5", "3"), at most ${MAX_PDF_PAGES} pages; PDF files only`),
      allow_large: z
        .boolean()
        .optional()
        .describe('Read past the default line limit, within the output limit (use sparingly)'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: true,
  changesFiles: false,
  labelsItself: true,
  subject: (input) => input.file_path,
  summarize: (input) => `Read ${input.file_path}`,
  targetPath: (input) => input.file_path,
  refusal: (input) => (input.pages === undefined ? undefined : pagesProblem(input.pages, input.file_path)),
  async execute(input, context) {
    const { path, shown, media, buffer } = await inWorkdir(context.workdir, async (workdir) => {
      const path = workdir.realPath(input.file_path);
      const shown = displayPath(context.workdir, path);
      const media = MEDIA[extname(path).toLowerCase()];
      const { data } = await workdir
        .readFile(path, shown, {
          maxBytes: media ? MAX_MEDIA_BYTES[media.kind] : READ_MAX_FILE_BYTES,
          ...(media
            ? {}
            : {
                binary: (bytes: number) =>
                  `${shown} looks like a binary file (${formatBytes(bytes)}) and cannot be read as text.`,
              }),
          tooLarge: (bytes) =>
            media
              ? `${shown} is ${(bytes / 1e6).toFixed(1)} MB; ${media.kind === 'image' ? 'images' : 'PDFs'} of at most ${MAX_MEDIA_BYTES[media.kind] / 1e6} MB can be shown. Use a smaller version.`
              : `${shown} is ${formatBytes(bytes)}, more than Read loads (${formatBytes(READ_MAX_FILE_BYTES)}). Use Grep to find what you need, or Bash (head, tail, sed -n) to see parts of it.`,
          signal: context.signal,
        })
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') throw new ToolError(`File does not exist: ${shown}`);
          throw error;
        });
      return { path, shown, media, buffer: data };
    });
    if (media) return readMedia(shown, buffer, media, input.pages);
    const content = buffer.toString('utf8');
    const fileState = { path, sha256: sha256(content) };
    if (content.length === 0) {
      return { text: '<system-reminder>The file exists but is empty.</system-reminder>', fileState };
    }
    if (isNotebookPath(path) && input.offset === undefined && input.limit === undefined)
      return readNotebook(content, shown, fileState);
    return readLines(content, input, fileState);
  },
});

/** A text file's lines, numbered like `cat -n`: from `offset`, `limit` of them (all with allow_large). */
function readLines(
  content: string,
  input: { offset?: number; limit?: number; allow_large?: boolean },
  fileState: { path: string; sha256: string },
): ToolOutput {
  const lines = content.endsWith('\n') ? content.slice(0, -1).split('\n') : content.split('\n');
  const start = (input.offset ?? 1) - 1;
  if (start >= lines.length) {
    throw new ToolError(`offset ${input.offset} is past the end of the file, which has ${lines.length} lines.`);
  }
  const end = Math.min(
    lines.length,
    start + (input.limit ?? (input.allow_large ? lines.length : READ_DEFAULT_LINE_LIMIT)),
  );
  const numbered = lines.slice(start, end).map((line, index) => {
    const cut = line.length > READ_MAX_LINE_CHARS ? `${line.slice(0, READ_MAX_LINE_CHARS)}… [line truncated]` : line;
    return `${String(start + index + 1).padStart(6)}\t${cut}`;
  });
  let text = numbered.join('\n');
  if (text.length > MAX_OUTPUT_CHARS) {
    throw new ToolError(
      `The requested lines hold ${text.length} characters, more than ${MAX_OUTPUT_CHARS} can be returned at once. ` +
        'Use offset and limit to read a smaller part, or Grep to find what you need.',
    );
  }
  if (start > 0 || end < lines.length) {
    text += `\n\n(Showing lines ${start + 1}-${end} of ${lines.length}. Use offset and limit to read other parts.)`;
  }
  return { text, fileState };
}

/** A notebook as Claude Code shows it: cells with their ids and outputs, image outputs as images. */
function readNotebook(content: string, shown: string, fileState: { path: string; sha256: string }): ToolOutput {
  const { text, images } = renderNotebook(parseNotebook(content, shown));
  if (text.length > MAX_OUTPUT_CHARS)
    throw new ToolError(
      `The notebook ${shown} renders to ${text.length} characters, more than ${MAX_OUTPUT_CHARS} can be returned at once. ` +
        'Use offset and limit to read its JSON in parts, or Grep to find what you need.',
    );
  return {
    text: text || '<system-reminder>The notebook has no cells.</system-reminder>',
    fileState,
    ...(images.length
      ? {
          media: images.map((image) => ({
            kind: 'image' as const,
            ...image,
            estimatedChars: IMAGE_ESTIMATED_CHARS,
          })),
        }
      : {}),
  };
}

/** Why a `pages` value cannot be used: not a page or range, more than 20 pages, or not a PDF. */
function pagesProblem(pages: string, filePath: string): string | undefined {
  if (extname(filePath).toLowerCase() !== '.pdf')
    return 'pages applies to PDF files only: read other files without it (offset and limit select lines).';
  const range = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  const first = Number(range?.[1]);
  const last = range?.[2] === undefined ? first : Number(range[2]);
  if (!range || first < 1 || last < first)
    return `pages "${pages}" is not a page range: give one page ("3") or a range ("1-5"), counting from 1.`;
  if (last - first + 1 > MAX_PDF_PAGES)
    return `pages "${pages}" names ${last - first + 1} pages; at most ${MAX_PDF_PAGES} can be read at once.`;
  return undefined;
}

function readMedia(
  shown: string,
  file: Buffer,
  media: { kind: 'image' | 'document'; mediaType: string },
  pages: string | undefined,
) {
  const bytes = file.length;
  const base64 = file.toString('base64');
  // PDFs go to the model whole (no PDF library here): the pages asked for are named for it to look at.
  const focus = pages ? ` Pages are not cut out here: the whole PDF is shown; look at pages ${pages.trim()}.` : '';
  return {
    text: `${media.kind === 'image' ? 'Image' : 'PDF'} ${shown} (${media.mediaType}, ${Math.max(1, Math.round(bytes / 1024))} KB), shown below.${focus}`,
    media: [{ ...media, base64, estimatedChars: media.kind === 'image' ? IMAGE_ESTIMATED_CHARS : bytes }],
  };
}
