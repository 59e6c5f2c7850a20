import { verify } from '@sluice/webhooks/methods';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../store/subscriptions/delivery-queue.js';
import { splitDelivery } from '../store/subscriptions/split-delivery.js';
import { deliveryRequest, signBody } from './delivery-request.js';

const claimed: ClaimedDelivery = {
  id: '6f1c1c9e-1111-4222-8333-444455556666',
  webhookId: '0b0c0d0e-1111-4222-8333-444455556666',
  chainId: 8453,
  blockNumber: 12n,
  removal: false,
  items: '[{"value":"1"},{"value":"2"}]',
  itemCount: 2,
  attempt: 3,
  createdAt: new Date(0),
  url: 'https://example.com/hook',
  type: 'balances',
  secret: 'whsec_test',
  previousSecret: null,
};

describe('deliveryRequest', () => {
  it('signs the exact body bytes in the form @sluice/webhooks verifies', async () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const { body, headers } = deliveryRequest(claimed, now);
    expect(body.toString()).toBe('{"balance_changes":[{"value":"1"},{"value":"2"}]}');
    expect(headers).toMatchObject({
      'dune-webhook-id': claimed.webhookId,
      'dune-webhook-type': 'balances',
      'dune-webhook-chain-id': '8453',
      'dune-webhook-dispatch-timestamp': '2026-01-02T03:04:05.678Z',
      'dune-webhook-retry-index': '2',
      'dune-webhook-delivery-id': claimed.id,
    });
    const signature = headers['dune-webhook-signature']!;
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify('whsec_test', body.toString(), signature)).toBe(true);
    expect(await verify('whsec_other', body.toString(), signature)).toBe(false);
    expect(await verify('whsec_test', `${body.toString()} `, signature)).toBe(false);
    expect(signBody('whsec_test', body)).toBe(signature);
    expect(headers['dune-webhook-signature-previous']).toBeUndefined();
  });

  it('during a rotation grace period, a receiver holding either secret verifies', async () => {
    const rotated = { ...claimed, secret: 'whsec_new', previousSecret: 'whsec_old' };
    const { body, headers } = deliveryRequest(rotated, new Date());
    const text = body.toString();
    const current = headers['dune-webhook-signature']!;
    const previous = headers['dune-webhook-signature-previous']!;
    expect(await verify('whsec_new', text, current)).toBe(true);
    expect(await verify('whsec_old', text, previous)).toBe(true);
    expect(await verify('whsec_old', text, current)).toBe(false);
  });
});

describe('splitDelivery', () => {
  it('caps items and bytes per delivery, keeping order', () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ i }));
    const parts = splitDelivery(items, 100, 1_000_000);
    expect(parts.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(parts.flat()).toEqual(items);
    const big = Array.from({ length: 5 }, (_, i) => ({ i, pad: 'x'.repeat(400) }));
    const bySize = splitDelivery(big, 100, 1_000);
    expect(bySize.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(splitDelivery([{ pad: 'y'.repeat(5_000) }], 100, 1_000)).toHaveLength(1);
    expect(splitDelivery([])).toEqual([]);
  });
});
