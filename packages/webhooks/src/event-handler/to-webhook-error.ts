import type { WebhookError } from '../types.js';

// What API-client errors (e.g. octokit's `RequestError`) carry that `onError` handlers read.
const carried = ['status', 'request', 'response'] as const;

/**
 * Makes whatever a handler threw into an `Error` carrying `.event`. Non-errors (a thrown string)
 * are wrapped, keeping the original as `cause`; frozen errors are wrapped too, keeping their
 * `status`, `request` and `response`.
 *
 * @example
 * ```ts
 * errors.push(toWebhookError(thrown, event));
 * ```
 */
export function toWebhookError(thrown: unknown, event: WebhookError['event']): WebhookError {
  if (thrown instanceof Error && Object.isExtensible(thrown)) {
    (thrown as WebhookError).event = event;
    return thrown as WebhookError;
  }
  const message =
    thrown instanceof Error
      ? thrown.message
      : typeof thrown === 'string'
        ? thrown
        : `Handler threw a non-Error value: ${String(thrown)}`;
  const wrapped = new Error(message, { cause: thrown }) as WebhookError;
  if (thrown instanceof Error) {
    const source = thrown as WebhookError;
    for (const key of carried) {
      if (source[key] !== undefined) Object.assign(wrapped, { [key]: source[key] });
    }
  }
  wrapped.event = event;
  return wrapped;
}
