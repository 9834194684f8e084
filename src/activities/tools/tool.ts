import type { z } from 'zod';
import type { ToolName } from '../../shared/tool-names';
import type { FileState } from '../../shared/types';
import type { EffectJournal } from '../effect-journal';

/** What a tool sees of the session while it runs. */
export interface ToolContext {
  sessionId: string;
  toolUseId: string;
  workdir: string;
  /** Temporal attempt number: above 1, an earlier attempt of this very call was interrupted. */
  attempt: number;
  /** Content hash of each file the session has read or written, as it saw it last. */
  knownFiles: ReadonlyMap<string, string>;
  /** Records side effects so a retried call neither applies them twice nor reports a false failure. */
  journal: EffectJournal;
  /** Aborted when Temporal cancels the activity. */
  signal: AbortSignal;
}

export interface ToolOutput {
  text: string;
  isError?: boolean;
  fileState?: FileState;
}

/**
 * One tool, declared once (opencode style): the zod schema validates input and produces the
 * API's `input_schema`; `isConcurrencySafe` and `summarize` are pure and run in the model
 * activity to plan the calls; `execute` does the work in the tool activity.
 */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: ToolName;
  description: string;
  schema: Schema;
  isConcurrencySafe(input: z.infer<Schema>): boolean;
  /** One line for the Temporal UI, e.g. `Read src/config.js`. */
  summarize(input: z.infer<Schema>): string;
  /** The file the call reads or writes, if any (relative or absolute as the model gave it). */
  targetPath?(input: z.infer<Schema>): string | undefined;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput>;
}

/** A failure the model can act on: becomes an `is_error` tool result, never a retry. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}
