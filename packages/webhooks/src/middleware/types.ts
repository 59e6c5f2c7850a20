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
  /**
   * Milliseconds a request body may take to arrive, from the time the middleware starts reading
   * it; slower ones get 408 and their connection is closed. Default 30000.
   */
  bodyTimeout?: number;
  /**
   * Requests this middleware handles at once (from reading the body to the answer); more get
   * 429 with `Retry-After`. Default 1024.
   */
  maxConcurrentRequests?: number;
  /**
   * Body bytes this middleware buffers at once, over all requests, counted as they arrive (a
   * declared `Content-Length` reserves nothing); a request whose next bytes would pass it gets
   * 503 with `Retry-After`. At least
   * `maxPayloadBytes`. Default 100 MiB (or `maxPayloadBytes`, when larger).
   */
  maxConcurrentBodyBytes?: number;
}

export interface ResolvedMiddlewareOptions {
  path: string;
  log: Logger;
  timeout: number;
  maxPayloadBytes: number;
  bodyTimeout: number;
  maxConcurrentRequests: number;
  maxConcurrentBodyBytes: number;
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

/** What one request's body may use while it is read. */
export interface BodyAllowance {
  /** Largest body, in bytes (413 beyond it). */
  readonly maxPayloadBytes: number;
  /**
   * Called with each chunk's size as it arrives (not for bodies a framework already holds).
   * `false`: the middleware's shared byte budget is spent; stop reading and fail with the
   * error `exceeded()` returns.
   */
  take(bytes: number): boolean;
  /** The error to fail with after `take` returned `false` (503). */
  exceeded(): Error;
}

/** Stops a body read that is still running (the deadline passed); `done` is then not called. */
export type AbortBodyRead = () => void;

/** How the core reads one kind of request (Node `IncomingMessage`, Web `Request`). */
export interface RequestAdapter<TRequest> {
  /** The request URL as received (shown when it cannot be parsed). */
  getUrl(request: TRequest): string;
  /** Path without query (see `getRequestPathname`), or `null` when the URL cannot be parsed. */
  getPathname(request: TRequest): string | null;
  getMethod(request: TRequest): string;
  /** Header value by lower-case name; `undefined` when absent. */
  getHeader(request: TRequest, name: string): string | undefined;
  /** Reads the exact body and calls `done` once, with an error or the body, unless aborted. */
  readBody(request: TRequest, allowance: BodyAllowance, done: BodyCallback): AbortBodyRead;
}
