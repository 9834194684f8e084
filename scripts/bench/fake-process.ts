/**
 * The fake Anthropic API in a node process of its own, as a real API is outside the worker's and
 * the client's processes (the `turns` benchmark). Each session's first message names its length
 * and itself (`turns N session S`): the model asks for one Read a turn until its last, which
 * answers with text. Prints `url <url>` once listening, then `request <session> <turn> <Date.now()>`
 * per main-model request, so the benchmark times each turn from outside the worker.
 *
 *   node --import tsx scripts/bench/fake-process.ts
 */
import { FakeAnthropicServer, reply, text, toolUse, type RecordedRequest } from '../../test/support/fake-anthropic';

/** The length and name the session's prompt gives (`turns 300 session a1`): 1 and `-` when it names none. */
function sessionOf(request: RecordedRequest): { length: number; name: string } {
  const first = request.body.messages[0]?.content;
  const prompt = typeof first === 'string' ? first : (first?.find((block) => block.type === 'text')?.text ?? '');
  return { length: Number(/turns (\d+)/.exec(prompt)?.[1] ?? 1), name: /session (\S+)/.exec(prompt)?.[1] ?? '-' };
}

/** Main-model requests so far, by session. */
const requestsOf = new Map<string, number>();

async function main(): Promise<void> {
  const fake = await FakeAnthropicServer.start((request) => {
    const session = sessionOf(request);
    // Counted, not read off the request: a conversation carried over a continue-as-new may hold
    // fewer assistant messages than the turns taken. No retries against this fake: request n is turn n.
    const turn = requestsOf.get(session.name) ?? 0;
    requestsOf.set(session.name, turn + 1);
    process.stdout.write(`request ${session.name} ${turn} ${Date.now()}\n`);
    return turn < session.length - 1 ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]);
  });
  process.stdout.write(`url ${fake.url}\n`);
  process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
}

void main();
