/**
 * A fresh workdir on the real filesystem for calling the tools directly (no Temporal: tools take
 * their context as data), with a journal of its own, and the few things their tests keep doing:
 * put a file in it, read one back, say which files the session has read.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../../src/activities/tools/paths';
import { TOOLS } from '../../src/activities/tools/registry';
import type { ToolContext } from '../../src/activities/tools/tool';
import { LocalEffectJournal } from '../../src/store/effect-journal';
import { scratchDir } from './paths';
import { toolContext } from './tool-context';

export interface ToolWorkdir {
  /** The workdir's real path (`<scratch>/repo`; its parent is outside it, for escape attempts). */
  path: string;
  journal: LocalEffectJournal;
  /** A call in this workdir with this journal, as `toolContext` makes it. */
  context(overrides?: Partial<ToolContext>): ToolContext;
  /** Writes a file (relative to the workdir), creating its directories. */
  write(path: string, content: string | Buffer): void;
  /** A file's content now (relative to the workdir). */
  read(path: string): string;
  /** The session has read these files as they are now: `knownFiles` for Write and Edit. */
  known(...paths: string[]): Map<string, string>;
}

export function toolWorkdir(prefix = 'tools'): ToolWorkdir {
  const path = join(scratchDir(prefix), 'repo');
  mkdirSync(path);
  const journal = new LocalEffectJournal(scratchDir('journal'));
  return {
    path,
    journal,
    context: (overrides = {}) => toolContext(path, { journal, ...overrides }),
    write(file, content) {
      mkdirSync(join(path, file, '..'), { recursive: true });
      writeFileSync(join(path, file), content);
    },
    read: (file) => readFileSync(join(path, file), 'utf8'),
    known: (...files) =>
      new Map(files.map((file) => [join(path, file), sha256(readFileSync(join(path, file), 'utf8'))])),
  };
}

/** What the model is told when a call's input does not fit the tool's schema; undefined when it fits. */
export function inputError(name: string, input: unknown): string | undefined {
  const validation = TOOLS.validate(name, input, [name]);
  return validation.ok ? undefined : validation.errorText;
}
