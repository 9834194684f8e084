/**
 * Instruction files, as Claude Code reads its memory files: `AGENTS.md` and `CLAUDE.md` of the
 * worker's `AGENT_INSTRUCTIONS_DIR` (the user's, for every project) and of the workdir's root go
 * into the system prompt; those of a directory below the root reach the model the first time it
 * reads a file under that directory, appended to that Read's result.
 *
 * The files are the repository's (or the user's) words to the model: each is cut at
 * INSTRUCTION_FILE_MAX_CHARS, the system prompt's at INSTRUCTION_FILES_MAX_CHARS together, with
 * a note saying so. Confined like the file tools: a symlink that leads out of its directory is
 * not followed, and only regular files are read (a FIFO cannot stall the worker).
 */
import { dirname, relative, sep } from 'node:path';
import { INSTRUCTION_FILE_MAX_CHARS, INSTRUCTION_FILES_MAX_CHARS } from '../../shared/limits';
import { INSTRUCTION_FILE_NAMES } from '../../shared/instructions';
import { realDirectory } from '../../workdir/real-directory';
import { Workdir } from '../../workdir/workdir';

export interface InstructionFile {
  /** Its real path. */
  path: string;
  /** What it is to the model, as Claude Code says it. */
  scope: string;
  text: string;
  /** Characters of the whole file, when more than `text` holds. */
  fullChars?: number;
  /** In the workdir: the model can Read the rest of a file that was cut (not the user's). */
  inWorkdir: boolean;
}

const HEADER =
  'Codebase and user instructions are shown below. Be sure to adhere to these instructions. ' +
  'IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.';

/** The user's files (`AGENT_INSTRUCTIONS_DIR`), then the workdir root's. */
export async function rootInstructionFiles(workdir: string, userDir: string | undefined): Promise<InstructionFile[]> {
  // The user's directory is the worker's own (AGENT_INSTRUCTIONS_DIR): its real path is the operator's to choose.
  const real = userDir ? await realDirectory(userDir) : undefined;
  const realUserDir = real && 'path' in real ? real.path : undefined;
  const user = realUserDir
    ? await filesIn(realUserDir, '', "user's private global instructions for all projects", false)
    : [];
  return [...user, ...(await filesIn(workdir, '', 'project instructions, checked into the codebase', true))];
}

/** The system prompt's section of instructions (undefined: there are none), cut to the total budget. */
export function instructionsSection(
  files: readonly InstructionFile[],
  maxChars = INSTRUCTION_FILES_MAX_CHARS,
): string | undefined {
  if (files.length === 0) return undefined;
  let left = maxChars;
  const parts: string[] = [];
  for (const file of files) {
    const shown = left >= file.text.length ? file : cutFile(file, Math.max(0, left));
    left -= shown.text.length;
    parts.push(describe(shown));
  }
  return `# Instructions\n${HEADER}\n\n${parts.join('\n\n')}`;
}

/**
 * The instruction files of the directories between the workdir's root (excluded: its files are
 * in the system prompt) and the file just read, not shown yet: the reminder to append to the
 * Read's result, and the directories it covers (relative to the workdir).
 */
export async function nestedInstructions(
  workdir: string,
  readPath: string,
  shownDirs: readonly string[],
): Promise<{ reminder: string; dirs: string[] } | undefined> {
  const directory = relative(workdir, dirname(readPath));
  if (directory === '' || directory.startsWith('..')) return undefined;
  const parts = directory.split(sep);
  const files: InstructionFile[] = [];
  const dirs: string[] = [];
  for (let depth = 1; depth <= parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    if (shownDirs.includes(dir)) continue;
    const found = await filesIn(workdir, dir, `project instructions for ${dir}/, checked into the codebase`, true);
    if (found.length === 0) continue;
    files.push(...found);
    dirs.push(dir);
  }
  if (files.length === 0) return undefined;
  return { reminder: `<system-reminder>\n${files.map(describe).join('\n\n')}\n</system-reminder>`, dirs };
}

function describe(file: InstructionFile): string {
  const rest = file.inWorkdir ? `; Read ${file.path} for the rest` : '';
  const cut =
    file.fullChars !== undefined
      ? `\n\n[… cut: the file has ${file.fullChars} characters, the first ${file.text.length} are shown${rest}]`
      : '';
  return `Contents of ${file.path} (${file.scope}):\n\n${file.text}${cut}`;
}

function cutFile(
  file: InstructionFile,
  chars: number,
  fullChars = file.fullChars ?? file.text.length,
): InstructionFile {
  return { ...file, text: file.text.slice(0, chars), fullChars };
}

/** `AGENTS.md`, then `CLAUDE.md`, of `dir` under `root`; one file once (CLAUDE.md is often a link to AGENTS.md). */
async function filesIn(root: string, dir: string, scope: string, inWorkdir: boolean): Promise<InstructionFile[]> {
  let opened: Workdir;
  try {
    opened = Workdir.open(root);
  } catch {
    return [];
  }
  try {
    const files: InstructionFile[] = [];
    for (const name of INSTRUCTION_FILE_NAMES) {
      const file = await readInstructionFile(opened, dir ? `${dir}/${name}` : name, { scope, inWorkdir });
      if (file && !files.some((seen) => seen.path === file.path)) files.push(file);
    }
    return files;
  } finally {
    opened.close();
  }
}

/**
 * One file, its first INSTRUCTION_FILE_MAX_CHARS characters; undefined when it is missing,
 * outside `root` (a link leading out) or not a regular file (a FIFO is never opened).
 */
async function readInstructionFile(
  root: Workdir,
  name: string,
  about: Pick<InstructionFile, 'scope' | 'inWorkdir'>,
): Promise<InstructionFile | undefined> {
  // Four bytes a character at most: enough bytes for the characters kept, never the whole of a huge file.
  const head = await root.readHead(name, INSTRUCTION_FILE_MAX_CHARS * 4).catch(() => undefined);
  if (!head) return undefined;
  const text = head.data.toString('utf8').trim();
  if (!text) return undefined;
  const file: InstructionFile = { path: root.absolute(head.relative), ...about, text };
  const cut = text.length > INSTRUCTION_FILE_MAX_CHARS || head.size > head.data.length;
  return cut ? cutFile(file, INSTRUCTION_FILE_MAX_CHARS, Math.max(text.length, head.size)) : file;
}
