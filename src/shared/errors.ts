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
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** Failures of these types are not worth retrying: the same request fails the same way. */
export const NON_RETRYABLE_MODEL_ERRORS: readonly string[] = [
  ErrorType.ModelInvalidRequest,
  ErrorType.ModelAuthentication,
  ErrorType.ModelNotFound,
  ErrorType.MissingApiKey,
];
