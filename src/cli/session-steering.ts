/**
 * What `send`, `end`, `interrupt`, `approve` and `move` do to a running session: the same
 * signals and updates the Temporal CLI sends (see README), and the line each prints. Each takes
 * the client, so a test can hand it a fake one.
 */
import type { Client } from '@temporalio/client';
import type {
  ApprovalDecision,
  InterruptRequest,
  InterruptResult,
  MoveRequest,
  MoveResult,
  PendingQuestion,
} from '../shared/contract';
import {
  answerQuestionUpdate,
  approveToolUpdate,
  endSignal,
  interruptUpdate,
  moveUpdate,
  stateQuery,
  userMessageSignal,
} from '../workflows/definitions';
import { whileRunning } from './finished-session';

/** An update's failure as people should read it: the workflow's message, not the SDK's wrapper. */
export function updateError(error: Error & { cause?: Error }): Error {
  return new Error(error.cause?.message ?? error.message);
}

export async function sendMessage(client: Client, workflowId: string, text: string): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  await whileRunning(client, workflowId, () => handle.signal(userMessageSignal, { text }));
  console.log(`Queued for the next turn of ${workflowId}.`);
  return 0;
}

export async function endSession(client: Client, workflowId: string): Promise<number> {
  await whileRunning(client, workflowId, () => client.workflow.getHandle(workflowId).signal(endSignal));
  console.log(`Asked ${workflowId} to end: an interactive session closes, with its result, once it waits for input.`);
  return 0;
}

export async function interruptSession(client: Client, workflowId: string): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  const interrupt = () =>
    handle.executeUpdate<InterruptResult, [InterruptRequest]>(interruptUpdate.name, { args: [{}] });
  const { stopped } = await whileRunning(client, workflowId, interrupt);
  console.log(
    stopped === 'nothing'
      ? `Nothing to interrupt: ${workflowId} is not running a model call or tools.`
      : `Interrupted the ${stopped === 'model' ? 'model call' : 'tools'} of ${workflowId}.`,
  );
  return 0;
}

export async function approveCall(client: Client, workflowId: string, approval: ApprovalDecision): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  const approve = () => handle.executeUpdate(approveToolUpdate, { args: [approval] });
  await whileRunning(client, workflowId, approve).catch((error: Error & { cause?: Error }) => {
    throw updateError(error);
  });
  console.log(`${approval.decision === 'allow' ? 'Allowed' : 'Denied'} ${approval.toolUseId}.`);
  return 0;
}

/**
 * `answer`: the answers as the update takes them (question text → answer), then the update. Pairs
 * name a question by its header or its text (`Header=Label`); the session's `state` says which
 * questions wait. The update's own check refuses what does not fit (a wrong id, a question left out).
 */
export async function answerQuestions(
  client: Client,
  workflowId: string,
  toolUseId: string,
  given: { pairs: [string, string][] } | { json: Record<string, string> },
): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  const answer = async () => {
    let answers: Record<string, string>;
    if ('json' in given) answers = given.json;
    else {
      const state = await handle.query(stateQuery);
      const pending = state.pendingQuestions?.find((asked) => asked.toolUseId === toolUseId);
      if (!pending) throw new Error(`No AskUserQuestion call ${toolUseId} is waiting for an answer`);
      answers = answersByQuestion(pending, given.pairs);
    }
    return handle.executeUpdate(answerQuestionUpdate, { args: [{ toolUseId, answers }] });
  };
  await whileRunning(client, workflowId, answer).catch((error: Error & { cause?: Error }) => {
    throw updateError(error);
  });
  console.log(`Answered ${toolUseId}.`);
  return 0;
}

/** `Header=Label` pairs keyed by question text; several answers to one question joined by ", " (multiSelect). */
export function answersByQuestion(pending: PendingQuestion, pairs: [string, string][]): Record<string, string> {
  const answers: Record<string, string> = {};
  for (const [key, value] of pairs) {
    const question = pending.questions.find(
      (asked) => asked.question === key || asked.header.toLowerCase() === key.toLowerCase(),
    );
    if (!question)
      throw new Error(
        `No question ${JSON.stringify(key)} in ${pending.toolUseId}; its questions: ${pending.questions.map((asked) => `${asked.header} (${asked.question})`).join(', ')}`,
      );
    const before = answers[question.question];
    answers[question.question] = before ? `${before}, ${value}` : value;
  }
  return answers;
}

/** `move`: no whileRunning here; the update's own refusal says why a session cannot move. */
export async function moveSession(client: Client, workflowId: string, destination: MoveRequest): Promise<number> {
  const result: MoveResult = await client.workflow
    .getHandle(workflowId)
    .executeUpdate(moveUpdate, { args: [destination] })
    .catch((error: Error & { cause?: Error }) => {
      throw updateError(error);
    });
  console.log(
    `Moved ${workflowId} to ${result.host}: the files of turn ${result.turn} are in ${result.workdir}; the session goes on there.`,
  );
  return 0;
}
