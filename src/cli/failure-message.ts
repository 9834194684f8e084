/**
 * A failed session's error as people should read it: Temporal wraps the cause in layers
 * ("Workflow execution failed" → "Activity task failed" → what went wrong), and the outer ones
 * alone say nothing. Every layer's message, outermost first, each once.
 */
export function failureMessage(error: unknown): string {
  const messages: string[] = [];
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause.message && !messages.includes(cause.message)) messages.push(cause.message);
  }
  return messages.join(': ') || String(error);
}
