/**
 * Error types carried by `ApplicationFailure.type`. Stable: people and tools match on them
 * (`InvalidWorkflowInput` names the bad field; the model's are the API's own errors).
 */
export const ErrorType = {
  InvalidWorkflowInput: 'InvalidWorkflowInput',
  InvalidWorkdir: 'InvalidWorkdir',
  MissingApiKey: 'MissingApiKey',
  ModelInvalidRequest: 'ModelInvalidRequest',
  ModelAuthentication: 'ModelAuthentication',
  ModelNotFound: 'ModelNotFound',
  ModelRateLimited: 'ModelRateLimited',
  ModelOverloaded: 'ModelOverloaded',
  ModelServerError: 'ModelServerError',
  ModelConnectionError: 'ModelConnectionError',
  ModelMalformedResponse: 'ModelMalformedResponse',
  ContentMissing: 'ContentMissing',
  CompactionFailed: 'CompactionFailed',
  /** Update `rewind` found changes made beside the session; the failure's details list them. */
  RewindRefused: 'RewindRefused',
  /** Update `rewind` could not put the files back (the session's conversation was left as it was). */
  RewindFailed: 'RewindFailed',
  /** Input `repo` names a repository or ref the worker cannot clone or check out. */
  InvalidRepository: 'InvalidRepository',
  /** A `repo` session's move landed on the host it is moving away from: retried elsewhere. */
  WrongHost: 'WrongHost',
  /** Update `move` could not move the session (it keeps waiting for its host). */
  MoveFailed: 'MoveFailed',
  /** Another session holds the workdir's lease and the input said `onBusyWorkdir: "fail"`; the message names it. */
  WorkdirBusy: 'WorkdirBusy',
  /** The session's workdir lease expired and another session took it. */
  WorkdirLeaseLost: 'WorkdirLeaseLost',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** Failures of these types are not worth retrying: the same request fails the same way. */
export const NON_RETRYABLE_MODEL_ERRORS: readonly string[] = [
  ErrorType.ModelInvalidRequest,
  ErrorType.ModelAuthentication,
  ErrorType.ModelNotFound,
  ErrorType.MissingApiKey,
];

/** The numbers of a "prompt is too long: 205000 tokens > 200000 maximum" error, when it gives them. */
export function promptTooLongNumbers(message: string): { tokens: number; maximum: number } | undefined {
  const match = message.match(/(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum/i);
  if (!match) return undefined;
  const number = (text: string) => Number(text.replace(/,/g, ''));
  return { tokens: number(match[1]!), maximum: number(match[2]!) };
}
