/**
 * The fake Anthropic API in a node process of its own, as a real API is outside the worker's and
 * the client's processes (the `turns` benchmark). Each session's first message names its length
 * (`turns N`): the model asks for one Read a turn until its last, which answers with text. Prints
 * `url <url>` once listening, then `request <turn> <Date.now()>` per main-model request, so the
 * benchmark times each turn from outside the worker.
 *
 *   node --import tsx scripts/bench/fake-process.ts
 */
import { FakeAnthropicServer, reply, text, toolUse, turnOf, type RecordedRequest } from '../../test/support/fake-anthropic';

/** The length the session's prompt asks for (`turns 300`), or 1 when it names none. */
function sessionLength(request: RecordedRequest): number {
  const first = request.body.messages[0]?.content;
  const prompt = typeof first === 'string' ? first : (first?.find((block) => block.type === 'text')?.text ?? '');
  return Number(/turns (\d+)/.exec(prompt)?.[1] ?? 1);
}

async function main(): Promise<void> {
  const fake = await FakeAnthropicServer.start((request) => {
    const turn = turnOf(request);
    process.stdout.write(`request ${turn} ${Date.now()}\n`);
    return turn < sessionLength(request) - 1 ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]);
  });
  process.stdout.write(`url ${fake.url}\n`);
  process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
}

void main();
