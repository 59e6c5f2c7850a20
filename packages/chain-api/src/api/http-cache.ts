import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends `data` serialized by the route's response schema with a strong ETag, answering 304 when
 * the client's `If-None-Match` already has it. Used where a response is a pure function of the
 * store (activity pages, supported chains, the OpenAPI document), so pollers pay nothing when
 * nothing changed. Compression still applies afterwards (the ETag names the identity body).
 */
export function sendWithEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  cacheControl: string,
): FastifyReply {
  const body = typeof data === 'string' ? data : String(reply.serialize(data));
  const etag = strongEtag(body);
  reply.header('etag', etag).header('cache-control', cacheControl);
  const ifNoneMatch = request.headers['if-none-match'];
  if (etagMatches(ifNoneMatch, etag)) {
    return reply.code(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/** A strong ETag naming these exact bytes (or the UTF-8 encoding of this text). */
export function strongEtag(body: string | Uint8Array): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Whether an `If-None-Match` header names `etag` (or is `*`); weak tags compare by value. */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
