/**
 * The one model table: context window and maximum output per model.
 *
 * Names come from the installed @anthropic-ai/sdk `Model` union; none may be in the SDK's
 * deprecation table (test/unit/models.test.ts checks both against the installed SDK, so an SDK
 * upgrade that deprecates the default fails the build instead of silently shipping it).
 * Unknown models (any Anthropic-compatible endpoint may serve others) get the fallback limits;
 * the workflow input can override the context window (`contextWindowTokens`).
 */

export interface ModelLimits {
  contextWindowTokens: number;
  maxOutputTokens: number;
}

/** Default model of a session when neither the input's `model` nor `AGENT_MODEL` names one. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Cheap model for side work (summaries of tool batches). */
export const DEFAULT_SMALL_MODEL = 'claude-haiku-5-5';

/** Claude Code's model aliases, as agent definitions name models (`inherit`: the parent's). */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: DEFAULT_MODEL,
  opus: 'claude-opus-5-5',
  haiku: DEFAULT_SMALL_MODEL,
  fable: 'claude-fable-5-2',
};

export const FALLBACK_MODEL_LIMITS: ModelLimits = { contextWindowTokens: 200_000, maxOutputTokens: 64_000 };

export const MODEL_TABLE: Readonly<Record<string, ModelLimits>> = {
  'claude-fable-5-2': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-mythos-5-2': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-5-5': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-5-5': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-5-5': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-8': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-7': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-6': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4-6': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
};

export function modelLimits(model: string, overrides: Partial<ModelLimits> = {}): ModelLimits {
  const base = MODEL_TABLE[model] ?? FALLBACK_MODEL_LIMITS;
  return {
    contextWindowTokens: overrides.contextWindowTokens ?? base.contextWindowTokens,
    maxOutputTokens: overrides.maxOutputTokens ?? base.maxOutputTokens,
  };
}
