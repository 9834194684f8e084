import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { RunToolInput, RunToolOutput } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import { TOOL_RESULT_MAX_CHARS, TOOL_RESULT_PREVIEW_CHARS } from '../../shared/limits';
import { whileHeartbeating } from '../heartbeat';
import { type ContentStore, storeText } from '../store/content-store';
import type { EffectJournal } from '../store/effect-journal';
import { TOOLS, type ToolRegistry } from './registry';
import { ToolError, type ToolOutput } from './tool';

export interface ToolActivityDependencies {
  store: ContentStore;
  journal: EffectJournal;
  tools?: ToolRegistry;
}

/** Node's errors the model can act on (missing file, permissions): reported, not retried. */
const ACTIONABLE_ERROR_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EEXIST', 'ENOTEMPTY', 'EROFS', 'ENAMETOOLONG']);

export function createToolActivities({ store, journal, tools = TOOLS }: ToolActivityDependencies) {
  return {
    /**
     * One activity per `tool_use`. A tool's own failure is an `is_error` result for the model;
     * only infrastructure failures throw, so Temporal retries them.
     */
    async runTool(request: RunToolInput): Promise<RunToolOutput> {
      const context = Context.current();
      const validation = tools.validate(request.name, request.input, [request.name]); // allowedTools was enforced when planned
      let output: ToolOutput;
      if (!validation.ok) {
        output = { text: validation.errorText, isError: true };
      } else {
        output = await whileHeartbeating(async () => {
          try {
            return await validation.tool.execute(validation.input, {
              sessionId: request.sessionId,
              toolUseId: request.toolUseId,
              workdir: request.workdir,
              attempt: context.info.attempt,
              knownFiles: new Map(request.fileStates.map((state) => [state.path, state.sha256])),
              journal,
              signal: context.cancellationSignal,
            });
          } catch (error) {
            if (context.cancellationSignal.aborted) throw new CancelledFailure('Tool call cancelled');
            if (error instanceof ToolError) return { text: toolUseError(error.message), isError: true };
            const code = (error as NodeJS.ErrnoException).code;
            if (code && ACTIONABLE_ERROR_CODES.has(code)) return { text: toolUseError((error as Error).message), isError: true };
            throw error;
          }
        });
        if (context.cancellationSignal.aborted) throw new CancelledFailure('Tool call cancelled');
      }
      const text = await applyToolResultBudget(request, output.text);
      return {
        result: { toolUseId: request.toolUseId, isError: output.isError ?? false, content: await storeText(store, text), toolName: request.name },
        ...(output.fileState ? { fileState: output.fileState } : {}),
      };
    },
  };
}

/**
 * Tool-result budget: a result over the limit stays out of the context. The full text goes to
 * `<workdir>/.agent/tool-results/<tool_use id>.txt` (same name on a retry, so writing it again
 * is harmless) and the model sees the path and a preview.
 */
async function applyToolResultBudget(request: RunToolInput, text: string): Promise<string> {
  if (text.length <= TOOL_RESULT_MAX_CHARS) return text;
  const folder = join(request.workdir, '.agent');
  const relativePath = join('.agent', 'tool-results', `${request.toolUseId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
  await mkdir(join(folder, 'tool-results'), { recursive: true });
  // The folder is the agent's scratch space, never part of the user's repository.
  await writeFile(join(folder, '.gitignore'), '*\n');
  await writeFile(join(request.workdir, relativePath), text);
  return (
    `Output too large (${text.length} characters); the full output was saved to ${relativePath}. ` +
    'Read it in parts (offset and limit) or Grep it.\n\n' +
    `Preview (first ${TOOL_RESULT_PREVIEW_CHARS} characters):\n${text.slice(0, TOOL_RESULT_PREVIEW_CHARS)}`
  );
}
