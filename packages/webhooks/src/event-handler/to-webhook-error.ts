import type { WebhookError } from '../types.js';

/**
 * Makes whatever a handler threw into an `Error` carrying `.event`. Non-errors (a thrown string)
 * are wrapped, keeping the original as `cause`; frozen errors are wrapped too.
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
  wrapped.event = event;
  return wrapped;
}
