/**
 * Rate limits (issue 26): how long the API asks to wait, and the worker's limiter of model calls.
 *
 * - `rateLimitWaitMs` reads a 429's `retry-after` and `anthropic-ratelimit-*-reset` headers: the
 *   wait is the latest of them that applies, relative to the response's own `date`.
 * - `ModelCallLimiter` is shared by every model call of the worker process: when one call of an
 *   API key and model is refused until a reset, the others of that key and model do not send
 *   before it (they hand the wait to their workflow, or wait in the activity); and at most
 *   `AGENT_MODEL_CALLS_IN_FLIGHT` requests are in flight at once (unset: no cap).
 */
import { createHash } from 'node:crypto';

/** What the wait is read from: a fetch `Headers` (the SDK's error headers) or anything with `get`. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

/** The limits whose reset the API reports (`anthropic-ratelimit-<limit>-reset`, `-remaining`). */
export const RATE_LIMIT_KINDS = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;

/**
 * How long to wait before the request may succeed, in ms from the response (undefined: the
 * response says nothing). The max of `retry-after` (seconds or an HTTP date) and the reset
 * times (RFC 3339) of the limits that are exhausted (`-remaining: 0`), or of every reset given
 * when none says it is exhausted.
 */
export function rateLimitWaitMs(headers: HeaderSource | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const date = Date.parse(headers.get('date') ?? '');
  const responseMs = Number.isFinite(date) ? date : nowMs;
  const waits: number[] = [];
  const retryAfter = retryAfterMs(headers.get('retry-after') ?? undefined, responseMs);
  if (retryAfter !== undefined) waits.push(retryAfter);
  const resets = RATE_LIMIT_KINDS.map((kind) => ({
    reset: Date.parse(headers.get(`anthropic-ratelimit-${kind}-reset`) ?? ''),
    remaining: headers.get(`anthropic-ratelimit-${kind}-remaining`),
  })).filter(({ reset }) => Number.isFinite(reset));
  const exhausted = resets.filter(({ remaining }) => remaining !== null && remaining !== undefined && +remaining <= 0);
  for (const { reset } of exhausted.length ? exhausted : resets) waits.push(Math.max(0, reset - responseMs));
  return waits.length ? Math.max(...waits) : undefined;
}

function retryAfterMs(value: string | undefined, responseMs: number): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - responseMs) : undefined;
}

/** The limiter's key: a hash of the credentials and endpoint (never the key itself), and the model. */
export function limiterKey(credentials: { apiKey?: string; authToken?: string; baseURL?: string }): string {
  const secret = `${credentials.baseURL ?? ''}\n${credentials.apiKey ?? ''}\n${credentials.authToken ?? ''}`;
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

/** The model calls of one worker process: who is blocked until when, and how many are in flight. */
export class ModelCallLimiter {
  private readonly blockedUntil = new Map<string, number>();
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];

  /** `maxInFlight`: requests in flight at once (undefined: no cap). */
  constructor(public maxInFlight?: number) {}

  /** How long calls of `key` must still wait (0: they may send). */
  blockedFor(key: string, nowMs: number): number {
    const until = this.blockedUntil.get(key);
    if (until === undefined) return 0;
    if (until <= nowMs) this.blockedUntil.delete(key);
    return Math.max(0, until - nowMs);
  }

  /** A call of `key` was refused until `untilMs`: the others wait for it too. */
  block(key: string, untilMs: number): void {
    this.blockedUntil.set(key, Math.max(untilMs, this.blockedUntil.get(key) ?? 0));
  }

  /** Takes a slot (waiting for one under the cap); the returned function gives it back. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.maxInFlight !== undefined && this.inFlight >= this.maxInFlight) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = this.queue.indexOf(grant);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal!.reason ?? new Error('aborted'));
        };
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.queue.push(grant);
      });
    } else {
      this.inFlight++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The slot passes straight to the next waiter (inFlight unchanged), or is freed.
      if (next) next();
      else this.inFlight--;
    };
  }

  /** Calls in flight now (for tests and benchmarks). */
  get active(): number {
    return this.inFlight;
  }
}

/** The worker process's limiter: every ModelApi of the process shares it (AGENT_MODEL_CALLS_IN_FLIGHT sets its cap). */
export const PROCESS_MODEL_LIMITER = new ModelCallLimiter();
