import type { eventTable } from './event-table.js';

type EventTable = typeof eventTable;
type EventRow = EventTable[number];

/** Every event name of the Events table without an action, e.g. `'issues'`, `'push'`. */
export type WebhookEventName = EventRow[0];

/** The actions of one event, e.g. `WebhookEventAction<'star'>` is `'created' | 'deleted'`. */
export type WebhookEventAction<TEvent extends WebhookEventName> = Extract<
  EventRow,
  readonly [TEvent, ReadonlyArray<string>]
>[1][number];

/** Events whose payload carries an `action` (emitted under two names). */
export type WebhookEventNameWithAction = {
  [TRow in EventRow as TRow[0]]: TRow[1] extends readonly [] ? never : TRow[0];
}[WebhookEventName];

type PrefixActions<
  TEvent extends string,
  TActions extends ReadonlyArray<string>,
  TAcc extends ReadonlyArray<string> = [],
> = TActions extends readonly [
  infer THead extends string,
  ...infer TRest extends ReadonlyArray<string>,
]
  ? PrefixActions<TEvent, TRest, [...TAcc, `${TEvent}.${THead}`]>
  : TAcc;

type FlattenTable<TRows, TAcc extends ReadonlyArray<string> = []> = TRows extends readonly [
  readonly [infer TEvent extends string, infer TActions extends ReadonlyArray<string>],
  ...infer TRest,
]
  ? FlattenTable<TRest, [...TAcc, TEvent, ...PrefixActions<TEvent, TActions>]>
  : TAcc;

/** The literal tuple type of `emitterEventNames`, in table order. */
export type EmitterEventNames = Readonly<FlattenTable<EventTable>>;

/** Union of every event name and every `<event>.<action>` name. */
export type EmitterWebhookEventName = EmitterEventNames[number];
