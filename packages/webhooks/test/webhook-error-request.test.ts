import { describe, expect, it } from 'vitest';
import type { WebhookError, WebhookEventHandlerError } from '../src/types.js';
import { Webhooks } from '../src/webhooks.js';

// What an API client's error looks like when a handler's outgoing call fails.
function requestError(frozen: boolean): Error {
  const error = Object.assign(new Error('Not Found'), {
    status: 404,
    request: { method: 'GET', url: 'https://api.example/repos/o/r', headers: {} },
    response: { status: 404, data: { message: 'Not Found' } },
  });
  return frozen ? Object.freeze(error) : error;
}

describe('WebhookError keeps status, request and response', () => {
  for (const frozen of [false, true]) {
    it(`for a${frozen ? ' frozen' : 'n extensible'} error thrown by a handler`, async () => {
      const webhooks = new Webhooks({ secret: 's' });
      const thrown = requestError(frozen);
      webhooks.on('push', () => {
        throw thrown;
      });
      const seen: WebhookEventHandlerError[] = [];
      webhooks.onError((error) => void seen.push(error));
      const rejected = (await webhooks
        .receive({ id: '1', name: 'push', payload: { ref: 'refs/heads/main' } })
        .catch((error: unknown) => error)) as WebhookEventHandlerError;
      const [error] = rejected.errors as [WebhookError];
      expect(error.status).toBe(404);
      expect(error.request).toEqual({
        method: 'GET',
        url: 'https://api.example/repos/o/r',
        headers: {},
      });
      expect(error.response).toEqual({ status: 404, data: { message: 'Not Found' } });
      expect(error.event?.id).toBe('1');
      expect(error === thrown).toBe(!frozen);
      if (frozen) expect(error.cause).toBe(thrown);
      expect(seen[0]).toBe(rejected);
    });
  }
});
