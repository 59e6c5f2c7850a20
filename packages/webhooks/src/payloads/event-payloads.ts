import type { WebhookEventName } from '../event-names/event-name-types.js';
import type { ActionPayloadMap, EventPayloadMap } from './generated/webhook-definitions.js';

export type {
  ActionPayloadMap,
  EventPayloadMap,
  UnmappedWebhookDefinition,
  WebhookDefinitions,
} from './generated/webhook-definitions.js';
export type { WebhookSchemas } from './generated/webhook-schemas.js';

/**
 * The payload of one event, optionally narrowed to one or more actions. Generated from the
 * provider's published webhook schemas (see scripts/generate-payload-types.ts): e.g.
 * `WebhookEventPayload<'check_run', 'completed'>['check_run']['conclusion']`, and
 * `WebhookEventPayload<'star'>['action']` is `'created' | 'deleted'`.
 */
export type WebhookEventPayload<TEvent extends WebhookEventName, TAction extends string = never> = [
  TAction,
] extends [never]
  ? EventPayloadMap[TEvent]
  : ActionPayloadMap[Extract<`${TEvent}.${TAction}`, keyof ActionPayloadMap>];
