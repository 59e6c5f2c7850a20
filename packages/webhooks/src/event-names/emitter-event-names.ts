import type { EmitterEventNames } from './event-name-types.js';
import { eventTable } from './event-table.js';

/**
 * Read-only tuple of every event name and every `<event>.<action>` name, in the order of the
 * Events table (each event followed by its actions).
 *
 * @example
 * ```ts
 * import { emitterEventNames } from '@sluice/webhooks';
 * emitterEventNames.includes('issues.opened'); // true
 * ```
 */
export const emitterEventNames: EmitterEventNames = Object.freeze(
  eventTable.flatMap(([event, actions]) => [
    event,
    ...actions.map((action) => `${event}.${action}`),
  ]),
) as unknown as EmitterEventNames;
