import { UnsupportedEventNameError } from '../errors.js';

// Event names as providers send them: lower-case words joined by `_` (`pull_request_review`).
// No `.` (that would address `<event>.<action>` handlers), no `*`, bounded length.
const EVENT_NAME_FORM = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Checks an event name taken from a delivery (`X-Provider-Event`) before any handler can run:
 * `undefined` when it may be dispatched, else an `UnsupportedEventNameError` (400). `*` and
 * `error` are refused because they address the `onAny()` and `onError()` handlers; anything
 * that is not an event name's form (upper case, `.`, spaces, over 64 characters) is refused too.
 * Unknown names of the right form pass, so new provider events keep working.
 *
 * @example
 * ```ts
 * checkDeliveryEventName('push'); // undefined
 * checkDeliveryEventName('error'); // UnsupportedEventNameError
 * ```
 */
export function checkDeliveryEventName(name: string): UnsupportedEventNameError | undefined {
  if (EVENT_NAME_FORM.test(name)) {
    return name === 'error'
      ? new UnsupportedEventNameError({ details: '"error" is reserved for onError() handlers' })
      : undefined;
  }
  if (name === '*') {
    return new UnsupportedEventNameError({ details: '"*" is reserved for onAny() handlers' });
  }
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return new UnsupportedEventNameError({
    details: `${JSON.stringify(shown)} is not an event name (lower-case letters, digits and "_", at most 64 characters)`,
  });
}
