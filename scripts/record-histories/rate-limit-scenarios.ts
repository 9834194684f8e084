/**
 * Issue 26: sessions through a rate limit. The fake refuses a window of requests with 429 and
 * the exhausted limit's reset: one session waits it out on a timer and goes on, one meets a limit
 * longer than its `maxRateLimitWaitMs` and ends `rate_limited`.
 */
import { byTurn, RateLimitWindow, reply, text, toolUse } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

const READ_THEN_ANSWER = () =>
  byTurn([reply([toolUse('Read', { file_path: 'notes.txt' })]), reply([text('Read the notes.')])]);

export const rateLimitScenarios: Scenario[] = [
  {
    name: 'rate-limit-wait',
    files: { 'notes.txt': 'hello\n' },
    handler: READ_THEN_ANSWER(),
    setup: (harness) => {
      harness.fake.rateLimit = new RateLimitWindow({ durationMs: 3_000, startAfter: 1 });
    },
  },
  {
    name: 'rate-limit-exhausted',
    files: { 'notes.txt': 'hello\n' },
    handler: READ_THEN_ANSWER(),
    input: { maxRateLimitWaitMs: 5_000 },
    setup: (harness) => {
      harness.fake.rateLimit = new RateLimitWindow({ durationMs: 60_000, startAfter: 1 });
    },
  },
];
