import type { Logger } from '../log.js';
import type { EmitterWebhookEventWithStringPayloadAndSignature } from '../types.js';

/** What the middleware needs from a `Webhooks` instance. */
export interface WebhooksLike {
  verifyAndReceive(delivery: EmitterWebhookEventWithStringPayloadAndSignature): Promise<void>;
  readonly log?: Logger;
}

export interface MiddlewareOptions {
  /** Path deliveries are posted to. Default `/api/hosting/webhooks`; trailing slashes ignored. */
  path?: string;
  /** Logger; default: the `Webhooks` instance's logger. Secrets and signatures are never logged. */
  log?: Partial<Logger>;
  /** Milliseconds to wait for handlers before answering 202 (they keep running). Default 9000. */
  timeout?: number;
  /** Largest accepted body in bytes; larger ones get 413 without being buffered. Default 25 MiB. */
  maxPayloadBytes?: number;
}

export interface ResolvedMiddlewareOptions {
  path: string;
  log: Logger;
  timeout: number;
  maxPayloadBytes: number;
}

/** A response the core decided on; adapters turn it into a Node or Web response. */
export interface MiddlewareResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The request body was not read to the end: close the connection instead of draining it. */
  closeConnection?: boolean;
}

/** Receives the body bytes (or text), or the `WebhooksError` (413, 500, 400) that stopped it. */
export type BodyCallback = (error: unknown, body?: Uint8Array | string) => void;

/** How the core reads one kind of request (Node `IncomingMessage`, Web `Request`). */
export interface RequestAdapter<TRequest> {
  /** Path without query, or `null` when the URL cannot be parsed. */
  getPathname(request: TRequest): string | null;
  getMethod(request: TRequest): string;
  /** Header value by lower-case name; `undefined` when absent. */
  getHeader(request: TRequest, name: string): string | undefined;
  /** Reads the exact body and calls `done` once, with an error or the body. */
  readBody(request: TRequest, maxPayloadBytes: number, done: BodyCallback): void;
}
