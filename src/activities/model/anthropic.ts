/**
 * The one way to the Messages API. Every request (the model call, compactions, tool-batch
 * summaries) goes through `ModelApi.stream`: it streams with a heartbeat per event, aborts the
 * HTTP request when Temporal cancels the activity (an interrupt, or the workflow cancelled), and
 * classifies every error, so retries are Temporal's and each attempt shows in the UI.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Usage } from '../../shared/conversation';
import { whileHeartbeating } from '../heartbeat';
import type { LivePublisher } from '../../live/live-publisher';
import { classifyModelError, rateLimitDetails, type WithheldError } from './errors';
import { limiterKey, type ModelCallLimiter, PROCESS_MODEL_LIMITER } from './rate-limits';

/** Credentials and endpoint, from the worker's environment only (never from history). */
export interface AnthropicSettings {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
}

/** A reply, or an error the workflow recovers from (prompt too long, media too large). */
export type ModelReply = { kind: 'message'; message: Anthropic.Message } | WithheldError;

/**
 * A rate limit handed to the workflow (issue 26): refused by the API (429), or not sent because
 * another call of the same key and model was refused until a reset that has not come yet.
 * `waitMs`: what the API asked for, from the response (null: it said nothing).
 */
export interface RateLimitedReply {
  kind: 'rate_limited';
  refused: boolean;
  waitMs: number | null;
  message: string;
}

/** The longest a call waits in its activity for another call's reset (when the wait is not the workflow's). */
const IN_ACTIVITY_WAIT_MAX_MS = 30_000;

export class ModelApi {
  private client: Anthropic | undefined;

  /** The client is created on first use: a worker that never calls the model needs no key. */
  constructor(
    private readonly createClient: () => Anthropic,
    /** The worker's limiter (shared by the process), and this API's key in it (a hash of the credentials). */
    private readonly limiter: ModelCallLimiter = PROCESS_MODEL_LIMITER,
    private readonly key = '',
  ) {}

  static fromSettings(settings: AnthropicSettings, limiter: ModelCallLimiter = PROCESS_MODEL_LIMITER): ModelApi {
    const { apiKey, authToken, baseURL } = settings;
    // maxRetries 0: Temporal's retry policy owns retries, so every attempt shows in the UI.
    return new ModelApi(
      () => new Anthropic({ apiKey: apiKey ?? null, authToken: authToken ?? null, baseURL, maxRetries: 0 }),
      limiter,
      limiterKey(settings),
    );
  }

  /**
   * Sends one request and waits for the whole reply. Throws `CancelledFailure` when the activity
   * is cancelled and a classified `ApplicationFailure` (retryable or not) for an API error.
   * With `live`, the reply's text and thinking also go to the session's watchers as they come.
   */
  async stream(
    params: Anthropic.MessageCreateParamsNonStreaming,
    what: string,
    live?: LivePublisher,
  ): Promise<ModelReply> {
    return (await this.send(params, what, live, false)) as ModelReply;
  }

  /**
   * As `stream`, but a rate limit comes back as data for the workflow to wait out with a durable
   * timer (issue 26), also when another call of this key and model was refused until a reset
   * still to come (then nothing is sent).
   */
  async streamOrRateLimit(
    params: Anthropic.MessageCreateParamsNonStreaming,
    what: string,
    live?: LivePublisher,
  ): Promise<ModelReply | RateLimitedReply> {
    return this.send(params, what, live, true);
  }

  private async send(
    params: Anthropic.MessageCreateParamsNonStreaming,
    what: string,
    live: LivePublisher | undefined,
    limitsAsData: boolean,
  ): Promise<ModelReply | RateLimitedReply> {
    const context = Context.current();
    const client = (this.client ??= this.createClient());
    const key = `${this.key}:${params.model}`;
    try {
      const answer = await whileHeartbeating(async () => {
        const release = await this.limiter.acquire(context.cancellationSignal);
        try {
          // Checked once the call has its slot: a call that waited for it may find the key refused meanwhile.
          const blocked = this.limiter.blockedFor(key, Date.now());
          if (blocked > 0 && limitsAsData) return { blocked, message: undefined };
          if (blocked > 0) await context.sleep(Math.min(blocked, IN_ACTIVITY_WAIT_MAX_MS));
          const stream = client.messages.stream(params, { signal: context.cancellationSignal });
          // The timer of whileHeartbeating keeps the call alive; a heartbeat per event would only
          // make a short call's first one (a server write) at once.
          for await (const event of stream) {
            if (live && event.type === 'content_block_delta') {
              if (event.delta.type === 'text_delta') live.delta('text', event.delta.text);
              else if (event.delta.type === 'thinking_delta') live.delta('thinking', event.delta.thinking);
            }
          }
          return { blocked: 0, message: await stream.finalMessage() };
        } finally {
          release();
        }
      });
      if (!answer.message) {
        const message = `Not sent: another call of this API key and model was rate limited for ${Math.ceil(answer.blocked / 1000)} s more`;
        return { kind: 'rate_limited', refused: false, waitMs: answer.blocked, message };
      }
      const { message } = answer;
      return { kind: 'message', message };
    } catch (error) {
      if (context.cancellationSignal.aborted) throw new CancelledFailure(`${what} cancelled`);
      const classified = classifyModelError(error);
      if (!(classified instanceof ApplicationFailure)) return classified;
      const limit = rateLimitDetails(classified);
      // The other calls of this key and model in the worker do not send before the reset.
      if (limit?.waitMs) this.limiter.block(key, Date.now() + limit.waitMs);
      if (limit && limitsAsData)
        return { kind: 'rate_limited', refused: true, waitMs: limit.waitMs, message: classified.message };
      throw classified;
    }
  }
}

export function usageOf(usage: Partial<Anthropic.Usage> | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
  };
}
