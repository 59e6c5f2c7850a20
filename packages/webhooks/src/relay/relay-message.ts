/** A delivery forwarded by a relay channel (one message per delivery). */
export interface RelayMessage {
  'x-request-id'?: string;
  'x-provider-event'?: string;
  'x-hub-signature'?: string;
  /** Preferred over `x-hub-signature` when the relay forwards it. */
  'x-hub-signature-256'?: string;
  /** Used as the delivery id when `x-request-id` is absent. */
  'x-provider-delivery'?: string;
  /** The delivery payload: parsed JSON (re-serialized for verification) or its exact text. */
  body?: unknown;
  [header: string]: unknown;
}
