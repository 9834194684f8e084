/**
 * Whether a call to Temporal failed because what it named does not exist: a gRPC NOT_FOUND as the
 * service returned it, or as the client wrapped it (`WorkflowNotFoundError`, also for an update
 * id a run does not know), anywhere in the error's cause chain.
 */
import { isGrpcServiceError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';

const GRPC_NOT_FOUND = 5;

export function isGrpcNotFound(error: unknown): boolean {
  for (let at = error; at instanceof Error; at = at.cause) {
    if (at instanceof WorkflowNotFoundError || (isGrpcServiceError(at) && at.code === GRPC_NOT_FOUND)) return true;
  }
  return false;
}
