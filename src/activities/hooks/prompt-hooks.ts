/**
 * `prompt` hooks (Claude Code's handler type): the small model (AGENT_SMALL_MODEL, or the hook's
 * `model`) judges the hook's prompt, the hook input JSON in place of `$ARGUMENTS` (after the
 * prompt when it has none), and answers `{"ok": true|false, "reason": "…"}`. One request per
 * hook, with the hook's timeout (default 30 s, as Claude Code); a failed or late answer decides
 * nothing and is reported.
 */
import type { PromptHook, ToolHookEvent } from '../../shared/hooks';
import { promptHookLabel } from '../../shared/hooks';
import { textOf } from '../../shared/conversation';
import type { ModelApi } from '../model/anthropic';
import { type HookVerdict, interpretPromptHook } from './hook-output';

export const PROMPT_HOOK_DEFAULT_TIMEOUT_MS = 30_000;

/** Claude Code's instructions to the model that judges a prompt hook. */
export const PROMPT_HOOK_SYSTEM =
  'You are evaluating a hook condition in a coding agent. Judge whether the user-provided condition is met. ' +
  'Your response must be a JSON object with one of these shapes: {"ok": true, "reason": ""} or ' +
  '{"ok": false, "reason": "<why not>"}. Always include a "reason" field. Answer with the JSON object only.';

/** The hook's prompt with the hook input in it. */
export function promptWithArguments(prompt: string, inputJson: string): string {
  return prompt.includes('$ARGUMENTS') ? prompt.split('$ARGUMENTS').join(inputJson) : `${prompt}\n\n${inputJson}`;
}

export async function runPromptHooks(
  event: ToolHookEvent | 'Stop',
  hooks: readonly PromptHook[],
  inputJson: string,
  { api, smallModel }: { api?: ModelApi | undefined; smallModel?: string | undefined },
): Promise<(HookVerdict & { command: string })[]> {
  const verdicts: (HookVerdict & { command: string })[] = [];
  for (const hook of hooks) {
    const label = promptHookLabel(hook);
    const model = hook.model ?? smallModel;
    if (!api || !model) {
      verdicts.push({ command: label, report: `${event} hook ${label}: this worker has no model for prompt hooks` });
      continue;
    }
    try {
      const reply = await withTimeout(
        api.stream(
          {
            model,
            max_tokens: 400,
            system: [{ type: 'text', text: PROMPT_HOOK_SYSTEM }],
            messages: [{ role: 'user', content: promptWithArguments(hook.prompt, inputJson) }],
          },
          `${event} prompt hook`,
        ),
        hook.timeoutMs ?? PROMPT_HOOK_DEFAULT_TIMEOUT_MS,
      );
      if (reply === 'timeout') verdicts.push({ command: label, report: `${event} hook ${label} timed out; ignored` });
      else if (reply.kind !== 'message')
        verdicts.push({ command: label, report: `${event} hook ${label}: the model gave no answer; ignored` });
      else verdicts.push({ command: label, ...interpretPromptHook(event, label, textOf(reply.message.content)) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      verdicts.push({ command: label, report: `${event} hook ${label} failed; ignored: ${message.slice(0, 300)}` });
    }
  }
  return verdicts;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
