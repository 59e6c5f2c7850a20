import { InvalidArgumentError, InvalidEventNameError } from '../errors.js';
import type { EmitterWebhookEventName } from '../event-names/event-name-types.js';
import { isKnownEventName } from '../event-names/is-known-event-name.js';
import type { Logger } from '../log.js';

export type ValidateEventNameOptions =
  | { onUnknownEventName?: undefined | 'throw' | false }
  | { onUnknownEventName: 'ignore' }
  | { onUnknownEventName: 'warn'; log?: Pick<Logger, 'warn'> | undefined };

/**
 * Throws a `TypeError` for names `on()` cannot take: non-strings, `*` (use `onAny()`), `error`
 * (use `onError()`) and names outside the Events table. With `onUnknownEventName: 'warn'`
 * unknown names are logged through `log.warn` (default: console) instead; with `'ignore'` they
 * pass silently. `*` and `error` always throw. `false` behaves like the default (throw), as in
 * `@octokit/webhooks`.
 *
 * @example
 * ```ts
 * validateEventName('issues.opened'); // ok
 * validateEventName('issues.typo'); // throws TypeError
 * validateEventName('custom_event', { onUnknownEventName: 'warn', log: pino() }); // warns
 * ```
 */
export function validateEventName<
  TOptions extends ValidateEventNameOptions = { onUnknownEventName?: undefined },
>(
  eventName: EmitterWebhookEventName | (string & Record<never, never>),
  options?: TOptions,
): asserts eventName is [TOptions] extends [{ onUnknownEventName: 'warn' | 'ignore' }]
  ? Exclude<string, '*' | 'error'>
  : EmitterWebhookEventName {
  if (typeof eventName !== 'string') {
    throw new InvalidEventNameError('eventName must be of type string');
  }
  if (eventName === '*') {
    throw new InvalidEventNameError(
      'Using the "*" event with the regular Webhooks.on() function is not supported. Please use the Webhooks.onAny() method instead',
    );
  }
  if (eventName === 'error') {
    throw new InvalidEventNameError(
      'Using the "error" event with the regular Webhooks.on() function is not supported. Please use the Webhooks.onError() method instead',
    );
  }
  const mode = options?.onUnknownEventName;
  if (
    mode !== undefined &&
    mode !== false &&
    mode !== 'throw' &&
    mode !== 'warn' &&
    mode !== 'ignore'
  ) {
    throw new InvalidArgumentError(
      `onUnknownEventName must be "throw", "warn" or "ignore" (received ${JSON.stringify(mode)})`,
    );
  }
  if (mode === 'ignore' || isKnownEventName(eventName)) return;
  // The peer's text, link included, so code matching on it keeps working.
  const message = `"${eventName}" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)`;
  if (mode === 'warn') {
    const log = (options as { log?: Pick<Logger, 'warn'> } | undefined)?.log ?? console;
    log.warn(message);
    return;
  }
  throw new InvalidEventNameError(message);
}
