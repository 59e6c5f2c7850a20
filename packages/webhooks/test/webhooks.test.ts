import { describe, expect, it, vi } from 'vitest';
import {
  InvalidJsonError,
  MissingSecretError,
  SignatureVerificationError,
  type WebhookEventHandlerError,
  Webhooks,
} from '../src/index.js';
import { captureLog } from './helpers/capture-log.js';
import { independentSign } from './helpers/independent-sign.js';

const secret = 'mysecret';
const payloadObject = { action: 'opened', issue: { id: 1, title: 'ünïcödé 🚀' } };
const payload = JSON.stringify(payloadObject);

describe('new Webhooks()', () => {
  it.each([
    ['no options', undefined],
    ['no secret', {}],
    ['empty secret', { secret: '' }],
    ['non-string secret', { secret: 42 }],
  ])('throws an Error for %s, as the peer does', (_label, options) => {
    expect(() => new Webhooks(options as never)).toThrow(MissingSecretError);
    expect(() => new Webhooks(options as never)).toThrow(
      /^\[@sluice\/webhooks\] options\.secret required$/,
    );
    expect(() => new Webhooks(options as never)).not.toThrow(TypeError);
  });

  it('rejects malformed additionalSecrets', () => {
    expect(() => new Webhooks({ secret, additionalSecrets: 'old' as never })).toThrow(
      /additionalSecrets must be an array of non-empty strings/,
    );
    expect(() => new Webhooks({ secret, additionalSecrets: [''] })).toThrow(TypeError);
  });

  it('has bound methods that work detached', async () => {
    const { sign, verify, on, receive } = new Webhooks({ secret });
    const fn = vi.fn();
    on('issues.opened', fn);
    await receive({ id: '1', name: 'issues', payload: payloadObject });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(await verify(payload, await sign(payload))).toBe(true);
  });
});

describe('sign / verify on the instance', () => {
  const webhooks = new Webhooks({ secret, additionalSecrets: ['old'] });

  it('signs with the instance secret like an independent HMAC', async () => {
    expect(await webhooks.sign(payload)).toBe(independentSign(secret, payload));
  });

  it('sign rejects without a payload', async () => {
    await expect((webhooks.sign as () => Promise<string>)()).rejects.toThrow(TypeError);
  });

  it('verify: true, false, and throws when either argument is missing', async () => {
    expect(await webhooks.verify(payload, independentSign(secret, payload))).toBe(true);
    expect(await webhooks.verify(payload, independentSign('wrong', payload))).toBe(false);
    // verify() checks the instance secret only; rotation is for verifyAndReceive.
    expect(await webhooks.verify(payload, independentSign('old', payload))).toBe(false);
    const call = webhooks.verify as (...a: unknown[]) => Promise<boolean>;
    await expect(call(payload)).rejects.toThrow(TypeError);
    await expect(call(undefined, 'sha256=00')).rejects.toThrow(TypeError);
  });
});

describe('verifyAndReceive', () => {
  it('verifies, parses and dispatches to event.action, event and onAny handlers', async () => {
    const webhooks = new Webhooks({ secret });
    const calls: string[] = [];
    webhooks.on('issues.opened', ({ payload: p }) => void calls.push(`opened:${p.issue.title}`));
    webhooks.on('issues', ({ name }) => void calls.push(`issues:${name}`));
    webhooks.onAny(({ id }) => void calls.push(`any:${id}`));
    await webhooks.verifyAndReceive({
      id: 'd-1',
      name: 'issues',
      payload,
      signature: independentSign(secret, payload),
    });
    expect(calls).toEqual(['opened:ünïcödé 🚀', 'issues:issues', 'any:d-1']);
  });

  it('accepts the payload as exact bytes', async () => {
    const webhooks = new Webhooks({ secret });
    const fn = vi.fn();
    webhooks.on('issues.opened', fn);
    const bytes = new TextEncoder().encode(payload);
    await webhooks.verifyAndReceive({
      id: 'd',
      name: 'issues',
      payload: bytes,
      signature: independentSign(secret, bytes),
    });
    expect(fn.mock.calls[0]?.[0].payload).toEqual(payloadObject);
  });

  it('accepts deliveries signed with an additional (rotated) secret', async () => {
    const webhooks = new Webhooks({ secret: 'new', additionalSecrets: ['old'] });
    const fn = vi.fn();
    webhooks.on('issues', fn);
    await webhooks.verifyAndReceive({
      id: 'd',
      name: 'issues',
      payload,
      signature: independentSign('old', payload),
    });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['another secret', independentSign('wrong', payload)],
    ['a sha1 signature', `sha1=${'0'.repeat(40)}`],
    ['an uppercase signature', independentSign(secret, payload).toUpperCase()],
    ['an empty signature', ''],
    ['no signature', undefined],
  ])('rejects and emits an error for %s, without running handlers', async (_label, signature) => {
    const log = captureLog();
    const webhooks = new Webhooks({ secret, log });
    const handler = vi.fn();
    const errors: WebhookEventHandlerError[] = [];
    webhooks.on('issues', handler);
    webhooks.onError((error) => void errors.push(error));
    const rejection = (await webhooks
      .verifyAndReceive({ id: 'd-9', name: 'issues', payload, signature: signature as string })
      .catch((e: unknown) => e)) as WebhookEventHandlerError;
    expect(rejection).toBeInstanceOf(AggregateError);
    expect(rejection.message).toBe(
      '[@sluice/webhooks] signature does not match event payload and secret',
    );
    expect(rejection.errors[0]).toBeInstanceOf(SignatureVerificationError);
    expect(rejection.errors[0]?.status).toBe(400);
    expect(rejection.event).toEqual({ id: 'd-9', name: 'issues', payload });
    expect(JSON.stringify(rejection.event)).not.toContain('sha');
    expect(errors).toEqual([rejection]);
    expect(handler).not.toHaveBeenCalled();
    expect(log.all()).not.toContain(secret);
  });

  it.each([
    ['broken JSON', '{"action":', /JSON/],
    ['a JSON string', '"hello"', /payload must be a JSON object/],
    ['a JSON array', '[1,2]', /payload must be a JSON object/],
    ['null', 'null', /payload must be a JSON object/],
  ])('rejects %s with InvalidJsonError (status 400)', async (_label, text, message) => {
    const webhooks = new Webhooks({ secret });
    const error = (await webhooks
      .verifyAndReceive({
        id: 'd',
        name: 'push',
        payload: text,
        signature: independentSign(secret, text),
      })
      .catch((e: unknown) => e)) as AggregateError;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors[0]).toBeInstanceOf(InvalidJsonError);
    expect(error.errors[0]).toBeInstanceOf(SyntaxError);
    expect(error.errors[0].status).toBe(400);
    expect(error.errors[0].message).toBe('Invalid JSON');
    expect(error.errors[0].details).toMatch(message);
  });

  it('rejects signed bytes that are not UTF-8 as invalid JSON', async () => {
    const webhooks = new Webhooks({ secret });
    const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]);
    const error = (await webhooks
      .verifyAndReceive({
        id: 'd',
        name: 'push',
        payload: bytes,
        signature: independentSign(secret, bytes),
      })
      .catch((e: unknown) => e)) as AggregateError;
    expect(error.errors[0].message).toBe('Invalid JSON');
    expect(error.errors[0].details).toBe('payload is not valid UTF-8 text');
  });

  it('rejects missing name or payload with a TypeError', async () => {
    const webhooks = new Webhooks({ secret });
    const call = webhooks.verifyAndReceive as (d: unknown) => Promise<void>;
    await expect(call(undefined)).rejects.toThrow(TypeError);
    await expect(call({ id: '1', payload, signature: 'sha256=' })).rejects.toThrow(
      'verifyAndReceive(): name required',
    );
    await expect(call({ id: '1', name: 'push', signature: 'sha256=' })).rejects.toThrow(
      'verifyAndReceive(): payload must be a string or a Uint8Array',
    );
  });

  it('handler failures reject with .errors and reach onError with .event', async () => {
    const webhooks = new Webhooks({ secret });
    webhooks.on('issues.opened', () => {
      throw new Error('handler broke');
    });
    const onError = vi.fn();
    webhooks.onError(onError);
    const error = (await webhooks
      .verifyAndReceive({
        id: 'd',
        name: 'issues',
        payload,
        signature: independentSign(secret, payload),
      })
      .catch((e: unknown) => e)) as WebhookEventHandlerError;
    expect(error.errors.map((e) => e.message)).toEqual(['handler broke']);
    expect(error.event).toEqual({ id: 'd', name: 'issues', payload: payloadObject });
    expect(onError).toHaveBeenCalledWith(error);
  });
});

describe('default logger', () => {
  it('is silent for debug/info and uses the console for warn/error', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    try {
      const webhooks = new Webhooks({ secret });
      webhooks.log.debug('d');
      webhooks.log.info('i');
      webhooks.on('not_an_event' as 'push', () => {});
      expect(warn).toHaveBeenCalledTimes(1);
      expect(info).not.toHaveBeenCalled();
      expect(debug).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      info.mockRestore();
      debug.mockRestore();
    }
  });

  it('keeps the methods of a partial logger and does not modify it', () => {
    const partial = { info: vi.fn() };
    const webhooks = new Webhooks({ secret, log: partial });
    webhooks.log.info('hello');
    expect(partial.info).toHaveBeenCalledWith('hello');
    expect(Object.keys(partial)).toEqual(['info']);
  });
});
