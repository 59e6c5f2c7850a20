import type { FastifyReply } from 'fastify';
import { PAGE_CSP } from '../html/layout.js';

/** Sends a server-rendered page with the security headers every page carries. */
export function sendPage(reply: FastifyReply, page: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(page);
}
