import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import { rateLimitWaitMs } from './rate-limits';

/** Withheld errors: handed to the workflow as data so it can branch on them (recovery layers). */
export type WithheldError =
  { kind: 'prompt_too_long'; status: number; message: string } | { kind: 'media_too_large'; message: string };

const PROMPT_TOO_LONG = /prompt is too long/i;
/** An image or PDF rejected for its size (e.g. "image exceeds 5 MB maximum"). */
const MEDIA_TOO_LARGE = /\b(image|pdf|document)s?\b.*\b(exceeds?|too large|too big|maximum)\b/i;

/**
 * Maps an SDK error to what the workflow should see. Retryable failures become retryable
 * `ApplicationFailure`s, so Temporal's retry policy owns the attempts and each one shows in the
 * UI (the SDK's own retries are off); requests that will fail the same way again are
 * non-retryable and carry the API's message.
 */
export function classifyModelError(error: unknown): WithheldError | ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof Anthropic.APIConnectionError) {
    return ApplicationFailure.retryable(
      `Could not reach the model API: ${error.message}`,
      ErrorType.ModelConnectionError,
    );
  }
  if (!(error instanceof Anthropic.APIError)) {
    const message = error instanceof Error ? error.message : String(error);
    return ApplicationFailure.retryable(`Model call failed: ${message}`, ErrorType.ModelConnectionError);
  }
  const status = error.status;
  const apiMessage = error.apiMessage ?? error.message;
  const type: string | undefined = error.type ?? undefined;
  const answer: ApiAnswer = { status, type, apiMessage };
  return withheldError(answer) ?? transientFailure(answer, error.headers) ?? refusal(answer);
}

/** What the API said about a failed request: its HTTP status, error type and message. */
interface ApiAnswer {
  status: number | undefined;
  type: string | undefined;
  apiMessage: string;
}

/** A request too big for the model (the prompt, or an image or PDF in it): for the workflow to shrink. */
function withheldError({ status, type, apiMessage }: ApiAnswer): WithheldError | undefined {
  if ((status === 400 || type === 'invalid_request_error') && PROMPT_TOO_LONG.test(apiMessage)) {
    return { kind: 'prompt_too_long', status: status ?? 400, message: apiMessage };
  }
  if ((status === 400 || status === 413 || type === 'invalid_request_error') && MEDIA_TOO_LARGE.test(apiMessage)) {
    return { kind: 'media_too_large', message: apiMessage };
  }
  if (status === 413 || type === 'request_too_large') {
    return { kind: 'prompt_too_long', status: 413, message: apiMessage };
  }
  return undefined;
}

/** Rate limits, overload and server errors: the same request may well succeed later. */
function transientFailure(
  { status, type, apiMessage }: ApiAnswer,
  headers: InstanceType<typeof Anthropic.APIError>['headers'],
): ApplicationFailure | undefined {
  if (status === 429 || type === 'rate_limit_error') {
    const retryAfterSeconds = Number(headers?.get('retry-after'));
    // The wait the headers ask for (retry-after, anthropic-ratelimit-*-reset), for the workflow's timer.
    const waitMs = rateLimitWaitMs(headers ?? undefined, Date.now());
    return ApplicationFailure.create({
      message: `Rate limited by the model API: ${apiMessage}`,
      type: ErrorType.ModelRateLimited,
      // Honour the server's retry-after; Temporal's backoff applies when it is absent.
      nextRetryDelay:
        Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : undefined,
      details: [{ waitMs: waitMs ?? null } satisfies RateLimitDetails],
    });
  }
  if (status === 529 || type === 'overloaded_error') {
    return ApplicationFailure.retryable(`Model API overloaded: ${apiMessage}`, ErrorType.ModelOverloaded);
  }
  if (
    (status !== undefined && (status >= 500 || status === 408 || status === 409)) ||
    type === 'api_error' ||
    type === 'timeout_error'
  ) {
    return ApplicationFailure.retryable(
      `Model API error (${status ?? type}): ${apiMessage}`,
      ErrorType.ModelServerError,
    );
  }
  return undefined;
}

/** What a rate-limit failure carries: the wait its headers ask for, in ms from the response (null: none said). */
export interface RateLimitDetails {
  waitMs: number | null;
}

/** The wait a classified rate-limit failure carries (undefined: none, or not a rate limit). */
export function rateLimitDetails(failure: ApplicationFailure): RateLimitDetails | undefined {
  if (failure.type !== ErrorType.ModelRateLimited) return undefined;
  const details = failure.details?.[0] as Partial<RateLimitDetails> | undefined;
  return { waitMs: typeof details?.waitMs === 'number' ? details.waitMs : null };
}

/** Requests that will fail the same way again (credentials, model, the request itself); an unknown answer is retried. */
function refusal({ status, type, apiMessage }: ApiAnswer): ApplicationFailure {
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') {
    return ApplicationFailure.nonRetryable(
      `Model API refused the credentials (${status ?? type}): ${apiMessage}`,
      ErrorType.ModelAuthentication,
    );
  }
  if (status === 404 || type === 'not_found_error') {
    return ApplicationFailure.nonRetryable(
      `Model API: not found (${status ?? type}): ${apiMessage}`,
      ErrorType.ModelNotFound,
    );
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return ApplicationFailure.nonRetryable(
      `Model API rejected the request (${status}): ${apiMessage}`,
      ErrorType.ModelInvalidRequest,
    );
  }
  return ApplicationFailure.retryable(
    `Model call failed (${type ?? 'unknown'}): ${apiMessage}`,
    ErrorType.ModelServerError,
  );
}
