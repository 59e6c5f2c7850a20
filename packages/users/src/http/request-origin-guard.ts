import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UsersError } from '../errors.js';

export interface RequestOriginPolicy {
  /**
   * Hostnames (no port) the `Host` header may name, lower-case, IPv6 without brackets; `'*'`
   * accepts any (a proxy in front checks it). Refusing others stops DNS rebinding: a page on a
   * foreign name that resolves to this server is same-origin to the browser, but names itself.
   */
  allowedHosts: readonly string[] | '*';
  /** Full origins (`https://admin.example.com`) allowed to send state-changing requests. */
  allowedOrigins: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `example.com:3000` -> `example.com`; `[::1]:3000` -> `::1`. */
export function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('['))
    return lower.slice(1, lower.indexOf(']') > 0 ? lower.indexOf(']') : undefined);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

function shown(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/**
 * Why a state-changing request must be refused as cross-site, or `undefined` to let it through.
 * Browsers say where a request comes from (`Sec-Fetch-Site`, else `Origin`); clients that send
 * neither (curl, scripts) are not browsers, so no other site can be driving them.
 */
function crossSiteReason(request: FastifyRequest, policy: RequestOriginPolicy): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && policy.allowedOrigins.includes(origin.toLowerCase()))
    return undefined;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    // 'none' is the user's own action (address bar, bookmark), never another page.
    if (site === 'same-origin' || site === 'none') return undefined;
    return `Sec-Fetch-Site is ${shown(site)}`;
  }
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return `Origin ${shown(origin)} is not a URL`;
  }
  if (originHost !== '' && originHost === request.headers.host?.toLowerCase()) return undefined;
  return `Origin ${shown(origin)} is not this service`;
}

/**
 * Refuses, before any body is read, requests naming a host outside `allowedHosts` (every method)
 * and state-changing requests a browser sends on behalf of another site (a forged form post or
 * `fetch`), with 403 and a JSON body saying why.
 *
 * @example
 * requestOriginGuard(app, { allowedHosts: ['localhost', '127.0.0.1', '::1'], allowedOrigins: [] });
 */
export function requestOriginGuard(app: FastifyInstance, policy: RequestOriginPolicy): void {
  app.addHook('onRequest', async (request, reply) => {
    // A refused request's body is never read: close the connection rather than wait for it.
    const refuse = (error: UsersError): never => {
      reply.header('connection', 'close');
      throw error;
    };
    const host = request.headers.host;
    // HTTP/1.0 may omit Host; browsers never do, so there is nothing to rebind.
    if (policy.allowedHosts !== '*' && host !== undefined) {
      if (!policy.allowedHosts.includes(hostnameOf(host))) {
        refuse(
          new UsersError(
            'USERS_HOST_NOT_ALLOWED',
            `Host ${shown(host)} is not allowed: add its name to ALLOWED_HOSTS to serve it`,
          ),
        );
      }
    }
    if (SAFE_METHODS.has(request.method)) return;
    const reason = crossSiteReason(request, policy);
    if (reason !== undefined) {
      refuse(
        new UsersError(
          'USERS_CROSS_SITE',
          `Cross-site request refused (${reason}): changes are only accepted from this service's own pages or from clients that are not browsers; list trusted origins in ALLOWED_ORIGINS`,
        ),
      );
    }
  });
}
