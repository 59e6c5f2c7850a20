import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { addressListParam, tokenOrNativeParam, walletAddressParam } from './address-params.js';
import { booleanParam, enumListParam, enumParam } from './choice-params.js';
import { historicalPricesParam, limitParam } from './number-params.js';
import { defineParams } from './param-spec.js';

const expect400 = (fn: () => unknown, name: string) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect((error as ApiError).message).toContain(`'${name}'`);
    return;
  }
  throw new Error(`expected a 400 for ${name}`);
};

describe('address', () => {
  it('accepts any case and answers lower case', () => {
    expect(walletAddressParam.parse('0xD8dA6BF26964aF9D7eEd9e03E53415D37aA96045', 'address')).toBe(
      '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
    );
  });
  it('rejects everything else', () => {
    for (const bad of [
      undefined,
      '',
      '0x',
      'd8da6bf26964af9d7eed9e03e53415d37aa96045',
      '0xZZdA6BF26964aF9D7eEd9e03E53415D37aA96045',
      `0x${'a'.repeat(41)}`,
      ` 0x${'a'.repeat(40)}`,
      'native',
    ]) {
      expect400(() => walletAddressParam.parse(bad, 'address'), 'address');
    }
  });
  it('token path accepts native', () => {
    expect(tokenOrNativeParam.parse('NATIVE', 'token_address')).toBe('native');
    expect400(() => tokenOrNativeParam.parse('eth', 'token_address'), 'token_address');
  });
  it('address lists', () => {
    const p = addressListParam(3);
    const a = `0x${'a'.repeat(40)}`;
    const b = `0x${'B'.repeat(40)}`;
    expect(p.parse(`${a},${b},${a}`, 'token_address')).toEqual([a, b.toLowerCase()]);
    expect400(() => p.parse(`${a},,${b}`, 'token_address'), 'token_address');
    expect400(() => p.parse(`${a},0x1`, 'token_address'), 'token_address');
    expect400(() => p.parse([a, a, a, a].join(','), 'token_address'), 'token_address');
  });
});

describe('limit', () => {
  const limit = limitParam({ min: 1, max: 100, fallback: 20 });
  it('defaults, accepts, clamps', () => {
    expect(limit.parse(undefined, 'limit')).toBe(20);
    expect(limit.parse('1', 'limit')).toBe(1);
    expect(limit.parse('100', 'limit')).toBe(100);
    expect(limit.parse('101', 'limit')).toBe(100);
    expect(limit.parse('99999999999999999999999999', 'limit')).toBe(100);
  });
  it('rejects non-integers and values under the minimum', () => {
    for (const bad of ['0', '-1', '1.5', 'ten', '1e3', ' 5', '0x10', '+5']) {
      expect400(() => limit.parse(bad, 'limit'), 'limit');
    }
  });
});

describe('booleans and enums', () => {
  const flag = booleanParam(false, '');
  it('booleans', () => {
    expect(flag.parse(undefined, 'exclude_unpriced')).toBe(false);
    expect(flag.parse('TRUE', 'exclude_unpriced')).toBe(true);
    expect(flag.parse('0', 'exclude_unpriced')).toBe(false);
    // A bare flag (`?exclude_unpriced` or `?exclude_unpriced=`) is true, whatever the fallback.
    expect(flag.parse('', 'exclude_unpriced')).toBe(true);
    expect(booleanParam(true, '').parse('', 'filter_spam')).toBe(true);
    expect(booleanParam(true, '').parse(undefined, 'filter_spam')).toBe(true);
    expect(booleanParam(true, '').parse('false', 'filter_spam')).toBe(false);
    for (const bad of ['yes', 'tru', '2', 'null']) {
      expect400(() => flag.parse(bad, 'exclude_unpriced'), 'exclude_unpriced');
    }
  });
  it('enums and enum lists', () => {
    const filters = enumParam(['erc20', 'native'], '');
    expect(filters.parse('ERC20', 'filters')).toBe('erc20');
    expect400(() => filters.parse('erc721', 'filters'), 'filters');
    const meta = enumListParam(['logo', 'url', 'pools'], '');
    expect(meta.parse('logo,pools,logo', 'metadata')).toEqual(['logo', 'pools']);
    expect400(() => meta.parse('logo,price', 'metadata'), 'metadata');
    expect400(() => meta.parse('logo,', 'metadata'), 'metadata');
  });
});

describe('historical_prices', () => {
  it('accepts 1 to 3 offsets', () => {
    expect(historicalPricesParam.parse('168', 'historical_prices')).toEqual([168]);
    expect(historicalPricesParam.parse('720, 168,24', 'historical_prices')).toEqual([720, 168, 24]);
  });
  it('rejects 4 or more, zero, negatives, non-integers', () => {
    for (const bad of ['1,2,3,4', '0', '-1', '1.5', 'a', '1,,2', '87601', '1e2']) {
      expect400(() => historicalPricesParam.parse(bad, 'historical_prices'), 'historical_prices');
    }
  });
});

describe('defineParams', () => {
  const q = defineParams({ limit: limitParam({ min: 1, max: 10, fallback: 5 }) });
  it('rejects repeated parameters', () => {
    expect400(() => q.parse({ limit: ['1', '2'] }), 'limit');
  });
  it('builds the schema', () => {
    expect(q.schema).toMatchObject({
      type: 'object',
      properties: { limit: { type: 'integer', maximum: 10 } },
    });
  });
});
