import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { classifyModelError, rateLimitDetails } from '../../../../src/activities/model/errors';

const apiError = (status: number | undefined, type: string, message: string, headers: Record<string, string> = {}) =>
  status === undefined
    ? // What the SDK's stream throws on an `error` event after a 200.
      new Anthropic.APIError(
        undefined,
        { type: 'error', error: { type, message } },
        undefined,
        new Headers(headers),
        type as never,
      )
    : Anthropic.APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers(headers));

function failure(error: unknown): ApplicationFailure {
  const classified = classifyModelError(error);
  if (!(classified instanceof ApplicationFailure))
    throw new Error(`expected a failure, got ${JSON.stringify(classified)}`);
  return classified;
}

describe('classifyModelError', () => {
  test('prompt too long (400) and request_too_large (413) are outcomes for the workflow, not failures', () => {
    expect(
      classifyModelError(apiError(400, 'invalid_request_error', 'prompt is too long: 201000 tokens > 200000 maximum')),
    ).toEqual({
      kind: 'prompt_too_long',
      status: 400,
      message: 'prompt is too long: 201000 tokens > 200000 maximum',
    });
    expect(
      classifyModelError(apiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes')),
    ).toMatchObject({
      kind: 'prompt_too_long',
      status: 413,
    });
  });

  test('an image or PDF rejected for its size is an outcome too', () => {
    expect(
      classifyModelError(
        apiError(400, 'invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum'),
      ),
    ).toEqual({
      kind: 'media_too_large',
      message: 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum',
    });
  });

  test.each([
    [400, 'invalid_request_error', 'ModelInvalidRequest'],
    [401, 'authentication_error', 'ModelAuthentication'],
    [403, 'permission_error', 'ModelAuthentication'],
    [404, 'not_found_error', 'ModelNotFound'],
  ])('HTTP %i fails at once (non-retryable %s → %s) with the API message', (status, type, expected) => {
    const classified = failure(apiError(status, type, `the API says ${status}`));
    expect(classified).toMatchObject({ type: expected, nonRetryable: true });
    expect(classified.message).toContain(`the API says ${status}`);
  });

  test.each([
    [529, 'overloaded_error', 'ModelOverloaded'],
    [500, 'api_error', 'ModelServerError'],
    [503, 'api_error', 'ModelServerError'],
    [undefined, 'overloaded_error', 'ModelOverloaded'], // an error event mid-stream after a 200
  ])('HTTP %s %s is retried by Temporal (%s)', (status, type, expected) => {
    expect(failure(apiError(status, type, 'try later'))).toMatchObject({ type: expected, nonRetryable: false });
  });

  test('429 honours retry-after', () => {
    const limited = failure(apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }));
    expect(limited).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false, nextRetryDelay: 7000 });
    expect(failure(apiError(429, 'rate_limit_error', 'slow down')).nextRetryDelay).toBeUndefined();
  });

  test('429 carries the wait its headers ask for, for the workflow (issue 26)', () => {
    const limited = failure(
      apiError(429, 'rate_limit_error', 'slow down', {
        'retry-after': '2',
        'anthropic-ratelimit-input-tokens-remaining': '0',
        'anthropic-ratelimit-input-tokens-reset': new Date(Date.now() + 75_000).toISOString(),
      }),
    );
    expect(rateLimitDetails(limited)!.waitMs).toBeGreaterThan(70_000);
    expect(rateLimitDetails(failure(apiError(429, 'rate_limit_error', 'slow down')))).toEqual({ waitMs: null });
    expect(rateLimitDetails(failure(apiError(529, 'overloaded_error', 'Overloaded')))).toBeUndefined();
  });

  test('network failures are retried', () => {
    const connection = new Anthropic.APIConnectionError({
      message: 'Connection error.',
      cause: new Error('ECONNREFUSED'),
    });
    expect(failure(connection)).toMatchObject({ type: 'ModelConnectionError', nonRetryable: false });
  });
});
