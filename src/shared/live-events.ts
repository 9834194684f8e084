/**
 * The events `durable-agent watch --json` and `run --json` write, one JSON object per line
 * (NDJSON), for scripts and editors. Public contract: fields are only ever added.
 *
 * Every event has `type`, `workflowId`, `turn` (the model call it belongs to, from 1) and `at`
 * (ISO 8601 time the watcher learnt of it). `text_delta`, `retry` and `tool_progress` come live
 * from the worker while a call runs (they are never in workflow history); the others come from
 * the session's transcript and result, so a watcher that attaches late still gets all of them.
 */
import { z } from 'zod';
import { questionSchema } from './plan-mode';

const base = { workflowId: z.string(), turn: z.number().int(), at: z.string() };

const usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  /** Issue 26: what the call (or, in `result`, the session with its sub-agents) cost in USD, when its model has a price. */
  costUsd: z.number().optional(),
});

export const liveEventSchema = z.discriminatedUnion('type', [
  /** The turn's model call is about to stream (or, for a late watcher, turn N's first event). */
  z.object({ type: z.literal('turn_start'), ...base }),
  /**
   * A piece of the model's reply as the API streamed it. `index` counts the pieces of one attempt
   * from 0 (no gaps, no repeats); a piece of a later `attempt` replaces everything earlier
   * attempts of the same turn streamed (their output is marked replaced by the `retry` event).
   */
  z.object({
    type: z.literal('text_delta'),
    ...base,
    attempt: z.number().int(),
    index: z.number().int(),
    kind: z.enum(['text', 'thinking']),
    text: z.string(),
  }),
  /** The model call failed and Temporal retries it: `replaced` says the partial output streamed so far is void. */
  z.object({
    type: z.literal('retry'),
    ...base,
    attempt: z.number().int(),
    nextAttempt: z.number().int(),
    delayMs: z.number(),
    reason: z.string(),
    message: z.string(),
    replaced: z.boolean(),
  }),
  z.object({ type: z.literal('tool_start'), ...base, toolUseId: z.string(), name: z.string(), summary: z.string() }),
  /** A running tool call: time since it started, and for Bash the last line its command wrote. */
  z.object({
    type: z.literal('tool_progress'),
    ...base,
    toolUseId: z.string(),
    name: z.string(),
    elapsedMs: z.number(),
    lastLine: z.string().optional(),
  }),
  z.object({
    type: z.literal('tool_end'),
    ...base,
    toolUseId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    preview: z.string(),
  }),
  /** The loop's transition after the turn (`next_turn`, a recovery, a stop hook …), as in the `state` query. */
  z.object({ type: z.literal('transition'), ...base, transition: z.string(), detail: z.string().optional() }),
  z.object({
    type: z.literal('approval_needed'),
    ...base,
    toolUseId: z.string(),
    name: z.string(),
    summary: z.string(),
    /** An ExitPlanMode call: the plan to approve (`durable-agent approve … --mode …`). */
    plan: z.string().optional(),
  }),
  /** An AskUserQuestion call waits for its answers (`durable-agent answer`, update `answerQuestion`). */
  z.object({
    type: z.literal('question_needed'),
    ...base,
    toolUseId: z.string(),
    questions: z.array(questionSchema),
  }),
  /** A message sent to the session (`durable-agent send`, signal `userMessage`), as the turn that takes it begins. */
  z.object({ type: z.literal('user_message'), ...base, text: z.string() }),
  /** The turn's model call finished: its tokens and stop reason, and the whole text it streamed. */
  z.object({ type: z.literal('usage'), ...base, stopReason: z.string(), usage, text: z.string() }),
  /** The session ended: the workflow's result (`AgentResult`), or `failed` with the failure's message. */
  z.object({
    type: z.literal('result'),
    ...base,
    reason: z.string(),
    usage: usage.optional(),
    finalText: z.string().optional(),
    error: z.string().optional(),
  }),
]);

export type LiveEvent = z.infer<typeof liveEventSchema>;
export type LiveEventType = LiveEvent['type'];

/**
 * What a worker publishes on the live channel while a call runs (the store's, outside history):
 * the event without the watcher's `at`, with the time it was published instead.
 */
export type PublishedEvent = Extract<LiveEvent, { type: 'text_delta' | 'retry' | 'tool_progress' }>;
