import { emitterEventNames } from './emitter-event-names.js';
import type { EmitterWebhookEventName } from './event-name-types.js';

const known: ReadonlySet<string> = new Set<string>(emitterEventNames);

/**
 * Whether `name` is an event name or `<event>.<action>` name of the Events table (O(1)).
 *
 * @example
 * ```ts
 * isKnownEventName('push'); // true
 * isKnownEventName('push.created'); // false: push has no actions
 * ```
 */
export function isKnownEventName(name: string): name is EmitterWebhookEventName {
  return known.has(name);
}
