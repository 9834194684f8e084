/**
 * `durable-agent answer`: answers an AskUserQuestion call waiting in the session (update
 * `answerQuestion`). `--answer 'Header=Label'` once per question (the question's header or its
 * whole text before the `=`; the same question twice: both answers, for a multiSelect), or
 * `--json '{"<question>":"<answer>"}'` as the update takes it.
 */
import { parseArgs } from 'node:util';
import { positional } from '../arguments';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

const USAGE = "answer <workflow-id> <tool-use-id> --answer '<header or question>=<answer>' … | --json '{…}'";

/** Answers as the person gave them: pairs (`Header=Label`) to match to the questions, or the update's JSON. */
export type GivenAnswers = { pairs: [string, string][] } | { json: Record<string, string> };

export function parseAnswerArguments(args: string[]): { workflowId: string; toolUseId: string; given: GivenAnswers } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { answer: { type: 'string', multiple: true }, json: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [workflowId, toolUseId] = positional(positionals, 2, USAGE);
  if (values.json !== undefined && values.answer) throw new UsageError('give --answer or --json, not both');
  if (values.json !== undefined)
    return { workflowId: workflowId!, toolUseId: toolUseId!, given: { json: jsonAnswers(values.json) } };
  if (!values.answer?.length) throw new UsageError(`usage: durable-agent ${USAGE}`);
  const pairs = values.answer.map((answer): [string, string] => {
    const at = answer.indexOf('=');
    if (at <= 0 || !answer.slice(at + 1).trim())
      throw new UsageError(`--answer takes '<header or question>=<answer>', not ${JSON.stringify(answer)}`);
    return [answer.slice(0, at).trim(), answer.slice(at + 1).trim()];
  });
  return { workflowId: workflowId!, toolUseId: toolUseId!, given: { pairs } };
}

function jsonAnswers(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--json takes a JSON object: {"<question>":"<answer>"}');
  }
  if (
    !value ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === 'string')
  )
    throw new UsageError('--json takes a JSON object of strings: {"<question>":"<answer>"}');
  return value as Record<string, string>;
}

export const answerCommand: Command = {
  name: 'answer',
  usage: `  durable-agent ${USAGE}`,
  async run(args, environment) {
    const { workflowId, toolUseId, given } = parseAnswerArguments(args);
    const { withClient } = await import('../cli-client');
    const { answerQuestions } = await import('../session-steering');
    return withClient(environment, (client) => answerQuestions(client, workflowId, toolUseId, given));
  },
};
