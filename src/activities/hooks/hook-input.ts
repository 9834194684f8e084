/**
 * The JSON a hook reads on stdin, as Claude Code writes it (pure, unit-tested): the common fields
 * (`session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and `agent_id`,
 * `agent_type` in a sub-agent), the call's (`tool_name`, `tool_input`, `tool_use_id`), the event's
 * own (`source`, `trigger`, `error`, …), and after a call its `tool_response`, shaped per tool as
 * Claude Code's (sdk-tools.d.ts's outputs) as far as a result's text tells.
 */
import type { ToolHookInput } from '../../shared/hook-runs';

/** Everything but the stored texts (the result, the prompt), which the activity loads. */
export function hookInputFields(input: ToolHookInput, transcriptPath?: string): Record<string, unknown> {
  return {
    session_id: input.sessionId,
    ...(transcriptPath ? { transcript_path: transcriptPath } : {}),
    cwd: input.workdir,
    ...(input.permissionMode ? { permission_mode: input.permissionMode } : {}),
    ...(input.agent ? { agent_id: input.agent.id, agent_type: input.agent.type } : {}),
    hook_event_name: input.event,
    ...(input.tool
      ? { tool_name: input.tool.name, tool_input: input.tool.input, tool_use_id: input.tool.toolUseId }
      : {}),
    ...input.eventFields,
  };
}

/**
 * After a call: PostToolUse's `tool_response`, or PostToolUseFailure's `error` (the failed result's
 * text). `tool_response` always keeps the fields it had before (`filePath`, `success`, `content`:
 * the result as the model reads it) and adds Claude Code's for Bash, Read, Write, Edit and Glob.
 */
export function resultFields(input: ToolHookInput, resultText: string | undefined): Record<string, unknown> {
  if (!input.result) return {};
  if (input.event === 'PostToolUseFailure') return { error: resultText ?? '' };
  return { tool_response: toolResponse(input, resultText ?? '') };
}

function toolResponse(input: ToolHookInput, text: string): Record<string, unknown> {
  const result = input.result!;
  const base = { ...(result.filePath ? { filePath: result.filePath } : {}), success: !result.isError, content: text };
  const toolInput = (input.tool?.input ?? {}) as Record<string, unknown>;
  const filePath = result.filePath ?? (typeof toolInput.file_path === 'string' ? toolInput.file_path : undefined);
  switch (input.tool?.name) {
    case 'Bash':
      return { ...base, stdout: text, stderr: '', interrupted: false, isImage: false };
    case 'Read':
      return { ...base, type: 'text', file: readFile(filePath ?? '', text, toolInput.offset) };
    case 'Write':
      // `content` stays the result's text (as before); the file's is in tool_input.
      return { ...base, type: text.startsWith('File created') ? 'create' : 'update', filePath };
    case 'Edit':
      return {
        ...base,
        filePath,
        oldString: stringOr(toolInput.old_string, ''),
        newString: stringOr(toolInput.new_string, ''),
        replaceAll: toolInput.replace_all === true,
        userModified: false,
        originalFile: null,
        structuredPatch: [],
      };
    case 'Glob': {
      const filenames = text.trim() && !/^No files found/.test(text) ? text.trim().split('\n') : [];
      return { ...base, filenames, numFiles: filenames.length, truncated: false };
    }
    default:
      return base;
  }
}

/** Read's `file`: the lines without the numbers the model sees (`     1\t…`). */
function readFile(filePath: string, text: string, offset: unknown) {
  const lines = text.split('\n').filter((line) => /^\s*\d+\t/.test(line));
  const content = lines.map((line) => line.replace(/^\s*\d+\t/, '')).join('\n');
  const startLine = typeof offset === 'number' && offset > 0 ? offset : 1;
  return { filePath, content, numLines: lines.length, startLine, totalLines: startLine - 1 + lines.length };
}

const stringOr = (value: unknown, otherwise: string): string => (typeof value === 'string' ? value : otherwise);
