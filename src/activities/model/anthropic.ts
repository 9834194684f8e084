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
import { classifyModelError, type WithheldError } from './errors';

/** Credentials and endpoint, from the worker's environment only (never from history). */
export interface AnthropicSettings {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
}

/** A reply, or an error the workflow recovers from (prompt too long, media too large). */
export type ModelReply = { kind: 'message'; message: Anthropic.Message } | WithheldError;

export class ModelApi {
  private client: Anthropic | undefined;

  /** The client is created on first use: a worker that never calls the model needs no key. */
  constructor(private readonly createClient: () => Anthropic) {}

  static fromSettings({ apiKey, authToken, baseURL }: AnthropicSettings): ModelApi {
    // maxRetries 0: Temporal's retry policy owns retries, so every attempt shows in the UI.
    return new ModelApi(
      () => new Anthropic({ apiKey: apiKey ?? null, authToken: authToken ?? null, baseURL, maxRetries: 0 }),
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
    const context = Context.current();
    const client = (this.client ??= this.createClient());
    try {
      const message = await whileHeartbeating(async () => {
        const stream = client.messages.stream(params, { signal: context.cancellationSignal });
        // The timer of whileHeartbeating keeps the call alive; a heartbeat per event would only
        // make a short call's first one (a server write) at once.
        for await (const event of stream) {
          if (live && event.type === 'content_block_delta') {
            if (event.delta.type === 'text_delta') live.delta('text', event.delta.text);
            else if (event.delta.type === 'thinking_delta') live.delta('thinking', event.delta.thinking);
          }
        }
        return stream.finalMessage();
      });
      return { kind: 'message', message };
    } catch (error) {
      if (context.cancellationSignal.aborted) throw new CancelledFailure(`${what} cancelled`);
      const classified = classifyModelError(error);
      if (classified instanceof ApplicationFailure) throw classified;
      return classified;
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
