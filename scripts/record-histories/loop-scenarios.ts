/** The recorded paths of the loop and its recovery layers. */
import { apiError, byTurn, isCompaction, reply, text, toolUse, windowRefusal } from '../../test/support/fake-anthropic';
import { MAX_INLINE_PROMPT_BYTES } from '../../src/shared/limits';
import { type Scenario, sequence } from './scenario';

export const loopScenarios: Scenario[] = [
  {
    name: 'tools-parallel-edit-bash',
    files: {
      'src/config.js': 'function parseConfig() {}\nmodule.exports = { parseConfig };\n',
      'src/main.js': "require('./config').parseConfig();\n",
    },
    handler: byTurn([
      reply([
        text('Reading.'),
        toolUse('Read', { file_path: 'src/config.js' }),
        toolUse('Read', { file_path: 'src/main.js' }),
        toolUse('Glob', { pattern: '**/*.js' }),
      ]),
      reply([
        toolUse('Edit', {
          file_path: 'src/config.js',
          old_string: 'parseConfig',
          new_string: 'loadConfig',
          replace_all: true,
        }),
      ]),
      reply([toolUse('Bash', { command: 'node -e "require(\'./src/config\')"', description: 'Load the module' })]),
      reply([text('Done.')]),
    ]),
  },
  {
    name: 'tool-errors-and-sibling-cancel',
    files: { 'a.txt': 'a\na\n' },
    handler: byTurn([
      reply([
        toolUse('Read', { path: 'a.txt' }),
        toolUse('Nope', {}),
        toolUse('Edit', { file_path: 'a.txt', old_string: 'a', new_string: 'b' }),
      ]),
      reply([toolUse('Bash', { command: 'exit 1' }), toolUse('Write', { file_path: 'b.txt', content: 'b' })]),
      reply([text('Gave up.')]),
    ]),
  },
  {
    name: 'model-retries-then-model-error',
    files: {},
    handler: (() => {
      let calls = 0;
      return () => {
        calls++;
        if (calls === 1) return apiError(529, 'overloaded_error', 'Overloaded');
        if (calls === 2) return reply([toolUse('Glob', { pattern: '*' })]);
        return apiError(400, 'invalid_request_error', 'something is wrong with the request');
      };
    })(),
  },
  {
    name: 'max-turns',
    files: { 'a.txt': 'a' },
    handler: () => reply([toolUse('Read', { file_path: 'a.txt' })]),
    input: { maxTurns: 2 },
  },
  {
    name: 'prompt-too-long',
    files: {},
    handler: () => apiError(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'),
  },
  {
    // One session through every recovery branch that lets it go on: output escalation and
    // recovery, overload fallback, autocompact, context collapse, reactive compaction.
    name: 'recovery-every-branch',
    files: {
      ...Object.fromEntries(
        Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(200)]),
      ),
      ...Object.fromEntries(Array.from({ length: 4 }, (_, index) => [`g${index}.txt`, `small ${index}\n`])),
    },
    input: { contextWindowTokens: 30_000, fallbackModel: 'claude-haiku-5-5', fallbackAfterOverloads: 2 },
    handler: (() => {
      let phase = 0;
      let compactions = 0;
      let bigReads = 0;
      let smallReads = 0;
      let refusals = 0;
      return (request) => {
        if (isCompaction(request)) {
          compactions++;
          return reply([text(`<summary>Summary ${compactions}: read the files so far.</summary>`)]);
        }
        switch (phase++) {
          case 0:
          case 1:
            return reply([text(`long answer part ${phase}`)], 'max_tokens');
          case 2:
            return reply([toolUse('Read', { file_path: 'g0.txt' })]);
          case 3:
          case 4:
            return apiError(529, 'overloaded_error', 'Overloaded');
        }
        if (compactions === 0) return reply([toolUse('Read', { file_path: `f${bigReads++}.txt` })]);
        if (smallReads < 4) return reply([toolUse('Read', { file_path: `g${smallReads++}.txt` })]);
        if (refusals < 2) {
          refusals++;
          return apiError(400, 'invalid_request_error', 'prompt is too long: 31000 tokens > 30000 maximum');
        }
        return reply([text('Done after every recovery.')]);
      };
    })(),
  },
  {
    // Issue 26: a server whose real window (4,400 tokens) the model table does not know. The first
    // refusal teaches it (patch compaction-fits); compactions fit it from then on.
    name: 'learned-window-compaction',
    files: Object.fromEntries(
      Array.from({ length: 5 }, (_, index) => [`m${index}.ts`, `${'// settings '.repeat(200)}\nparseConfig();\n`]),
    ),
    input: { allowedTools: ['Read', 'Edit'] },
    handler: (() => {
      let step = 0;
      return (request) => {
        const refused = windowRefusal(request.body, 4_400);
        if (refused) return apiError(400, 'invalid_request_error', refused);
        if (isCompaction(request)) return reply([text(`<summary>Renaming file by file; step ${step}.</summary>`)]);
        const current = step++;
        const file = `m${Math.floor(current / 2)}.ts`;
        if (current >= 10) return reply([text('Renamed.')]);
        return current % 2 === 0
          ? reply([toolUse('Read', { file_path: file })])
          : reply([toolUse('Edit', { file_path: file, old_string: 'parseConfig', new_string: 'loadConfig' })]);
      };
    })(),
  },
  {
    name: 'recovery-media-too-large',
    files: {},
    handler: () =>
      apiError(400, 'invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum'),
  },
  {
    name: 'max-output-tokens',
    files: {},
    handler: () => reply([text('an answer that never ends')], 'max_tokens'),
  },
  {
    name: 'pause-turn',
    files: {},
    handler: sequence([
      () => reply([text('Working on it…')], 'pause_turn'),
      () => reply([text('Done after the pause.')]),
    ]),
  },
  {
    name: 'refusal',
    files: {},
    handler: () => reply([text('I cannot help with that.')], 'refusal'),
  },
  {
    // A Read of a picture the endpoint refuses as too large: the media strip removes it and the session goes on.
    name: 'media-strip',
    files: {},
    binaryFiles: { 'shot.png': Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(3_000, 7)]) },
    setup: (harness) => {
      harness.fake.maxImageBytes = 2_000;
    },
    handler: sequence([
      () => reply([toolUse('Read', { file_path: 'shot.png' })]),
      () => reply([text('Looked at what was left.')]),
    ]),
  },
  {
    // An inline prompt over the limit: the session fails at once (patched 'inline-prompt-limit'), naming promptRef.
    name: 'inline-prompt-too-large',
    files: {},
    input: { prompt: `Scenario inline-prompt-too-large ${'x'.repeat(MAX_INLINE_PROMPT_BYTES)}` },
    handler: sequence([]),
  },
];
