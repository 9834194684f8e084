/**
 * What each signal, update and query of `agentWorkflow` takes, as zod schemas, and the one
 * function that checks a handler's raw arguments against them. Anyone with access to the
 * namespace can send anything (`temporal workflow signal --name userMessage` with no input, a
 * bulk `--query` over many sessions), so no handler touches its input before it is parsed here.
 *
 * Pure zod: imported by the workflow bundle (no I/O, nothing that varies between replays).
 */
import { z } from 'zod';
import { MODES_AFTER_PLAN } from './plan-mode';
import type {
  ApprovalDecision,
  CheckpointRequest,
  DiffRequest,
  InterruptRequest,
  MoveRequest,
  QuestionAnswer,
  RewindRequest,
  SubAgentApprovals,
  TranscriptRequest,
  UserMessage,
} from './contract';

/** One message's input: its name, its schema, and an example of what it takes (for the problem). */
export interface MessageInput<T> {
  name: string;
  /** `signal`, `update` or `query`: how the problem names it. */
  kind: 'signal' | 'update' | 'query';
  schema: z.ZodType<T>;
  example: string;
  /** The input may be left out (or `null`, as `--input null` sends it). */
  optional?: true;
}

const wholeNumber = z.number().int().min(0);
const nonBlank = z.string().refine((value) => value.trim().length > 0, 'must be a non-empty string');

export const USER_MESSAGE: MessageInput<UserMessage> = {
  name: 'userMessage',
  kind: 'signal',
  schema: z.object({ text: nonBlank }).strict(),
  example: '{"text":"…"}',
};

export const INTERRUPT_SIGNAL: MessageInput<InterruptRequest | undefined> = {
  name: 'interrupt',
  kind: 'signal',
  schema: z.object({ reason: z.string().optional() }).strict(),
  example: '{} or {"reason":"…"}',
  optional: true,
};

export const INTERRUPT_UPDATE: MessageInput<InterruptRequest | undefined> = { ...INTERRUPT_SIGNAL, kind: 'update' };

const approvalSchema = z
  .object({
    toolUseId: z.string().min(1),
    decision: z.enum(['allow', 'deny']),
    feedback: z.string().optional(),
    // Only for an ExitPlanMode call: the mode an approved plan goes on in.
    mode: z.enum(MODES_AFTER_PLAN).optional(),
  })
  .strict();

export const APPROVE_TOOL_UPDATE: MessageInput<ApprovalDecision> = {
  name: 'approveTool',
  kind: 'update',
  schema: approvalSchema,
  example: '{"toolUseId":"toolu_…","decision":"allow"|"deny","feedback"?:"…","mode"?:"default"|"acceptEdits"|…}',
};

export const APPROVE_TOOL_SIGNAL: MessageInput<ApprovalDecision> = { ...APPROVE_TOOL_UPDATE, kind: 'signal' };

const pendingApprovalSchema = z
  .object({
    toolUseId: z.string().min(1),
    name: z.string(),
    summary: z.string(),
    // Left out of the JSON when a call had none: never a reason to drop the report.
    input: z.unknown().optional(),
    plan: z.string().optional(),
    agent: z
      .object({ workflowId: z.string().min(1), description: z.string() })
      .strict()
      .optional(),
  })
  .strict();

export const SUB_AGENT_APPROVALS: MessageInput<SubAgentApprovals> = {
  name: 'subAgentApprovals',
  kind: 'signal',
  schema: z
    .object({ workflowId: z.string().min(1), description: z.string(), pending: z.array(pendingApprovalSchema) })
    .strict() as z.ZodType<SubAgentApprovals>,
  example: '{"workflowId":"…","description":"…","pending":[…]} (sent by sub-agents)',
};

/** Answers by question text; at most 4 questions, each answer a non-empty string (checked against the call by the session). */
export const ANSWER_QUESTION_UPDATE: MessageInput<QuestionAnswer> = {
  name: 'answerQuestion',
  kind: 'update',
  schema: z
    .object({
      toolUseId: z.string().min(1),
      answers: z
        .record(z.string(), nonBlank)
        .refine((answers) => Object.keys(answers).length >= 1 && Object.keys(answers).length <= 4, {
          message: 'must answer 1 to 4 questions',
        }),
    })
    .strict(),
  example: '{"toolUseId":"toolu_…","answers":{"<question>":"<answer>"}}',
};

export const REWIND_UPDATE: MessageInput<RewindRequest> = {
  name: 'rewind',
  kind: 'update',
  schema: z.object({ turn: wholeNumber, files: z.boolean().optional(), force: z.boolean().optional() }).strict(),
  example: '{"turn":N,"files"?:true,"force"?:false}',
};

export const MOVE_UPDATE: MessageInput<MoveRequest> = {
  name: 'move',
  kind: 'update',
  schema: z.object({ host: z.string().min(1), workdir: z.string().optional() }).strict(),
  example: '{"host":"…","workdir"?:"/abs/dir"}',
};

export const TRANSCRIPT_QUERY: MessageInput<TranscriptRequest | undefined> = {
  name: 'transcript',
  kind: 'query',
  schema: z.object({ fromIndex: wholeNumber.optional(), limit: wholeNumber.optional() }).strict(),
  example: '{"fromIndex"?:N,"limit"?:N}',
  optional: true,
};

export const CHECKPOINT_QUERY: MessageInput<CheckpointRequest> = {
  name: 'checkpoint',
  kind: 'query',
  schema: z.object({ turn: wholeNumber }).strict(),
  example: '{"turn":N}',
};

export const DIFF_QUERY: MessageInput<DiffRequest | undefined> = {
  name: 'diff',
  kind: 'query',
  schema: z.object({ fromTurn: wholeNumber.optional(), toTurn: wholeNumber.optional() }).strict(),
  example: '{"fromTurn"?:N,"toTurn"?:N}',
  optional: true,
};

export type ParsedInput<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Checks the arguments a handler got (Temporal passes one per payload: none without `--input`).
 * The problem names what is wrong, e.g. `text: expected string, received number`, or, when the
 * input is not an object at all, what the message takes.
 */
export function parseMessageInput<T>(input: MessageInput<T>, args: readonly unknown[]): ParsedInput<T> {
  const takes = `${input.name} takes ${input.example}`;
  if (args.length > 1) return { ok: false, problem: `got ${args.length} inputs; ${takes}` };
  const raw = args[0];
  if (raw === undefined || raw === null) {
    if (input.optional) return { ok: true, value: undefined as T };
    return { ok: false, problem: `${raw === null ? 'got null' : 'no input'}; ${takes}` };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, problem: `got ${kindOf(raw)}; ${takes}` };
  const parsed = input.schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problem: parsed.error.issues.map(describeIssue).join('; ') };
}

/** The same check for a validator or a query: the problem as the error its caller gets. */
export function checkMessageInput<T>(input: MessageInput<T>, args: readonly unknown[]): T {
  const parsed = parseMessageInput(input, args);
  if (!parsed.ok) throw new Error(`Invalid ${input.name} ${input.kind} input: ${parsed.problem}`);
  return parsed.value;
}

function kindOf(raw: unknown): string {
  if (Array.isArray(raw)) return 'an array';
  return typeof raw === 'string' ? `a string (${JSON.stringify(raw.slice(0, 40))})` : `a ${typeof raw}`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return `unknown field(s): ${issue.keys.map((key) => [...issue.path, key].join('.')).join(', ')}`;
  }
  const field = issue.path.length ? issue.path.join('.') : '(input)';
  const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
  // zod's own wording without its category ("Invalid input: expected string, received number").
  const message = issue.message.replace(/^(Invalid input|Invalid option|Too small|Too big): /, '');
  return `${field}: ${missing ? 'required' : message}`;
}
