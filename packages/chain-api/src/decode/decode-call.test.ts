import { encodeFunctionData, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { createSelectorRegistry, decodeCall } from './decode-call.js';

const A = '0x1111111111111111111111111111111111111111';
const W = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

describe('decodeCall', () => {
  it('decodes an ERC20 transfer with names, canonical types and string values', () => {
    const data = encodeFunctionData({
      abi: parseAbi(['function transfer(address to, uint256 value)']),
      args: [A, 10n ** 18n],
    });
    expect(decodeCall(data)).toEqual({
      signature: 'transfer(address,uint256)',
      name: 'transfer',
      inputs: [
        { name: 'to', type: 'address', value: A },
        { name: 'value', type: 'uint256', value: '1000000000000000000' },
      ],
    });
  });

  it('decodes a Uniswap v2 router swap with an address[] path', () => {
    const data = encodeFunctionData({
      abi: parseAbi([
        'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      ]),
      args: [1n, [W, A], A, 99n],
    });
    const call = decodeCall(data);
    expect(call?.name).toBe('swapExactETHForTokens');
    expect(call?.inputs[1]).toEqual({
      name: 'path',
      type: 'address[]',
      value: JSON.stringify([W, A]),
    });
  });

  it('decodes v3 router structs (tuple types) and tells SwapRouter from SwapRouter02', () => {
    const abi = parseAbi([
      'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params)',
    ]);
    const data = encodeFunctionData({
      abi,
      args: [
        {
          tokenIn: W,
          tokenOut: A,
          fee: 500,
          recipient: A,
          amountIn: 5n,
          amountOutMinimum: 1n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    });
    const call = decodeCall(data);
    expect(call?.signature).toBe(
      'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))',
    );
    expect(call?.inputs[0]?.type).toBe('(address,address,uint24,address,uint256,uint256,uint160)');
    expect(JSON.parse(call?.inputs[0]?.value ?? '{}')).toMatchObject({ fee: 500, amountIn: '5' });
  });

  it('returns null for empty input, unknown selectors and garbage calldata', () => {
    expect(decodeCall('0x')).toBeNull();
    expect(decodeCall('0x12345678')).toBeNull();
    expect(decodeCall('0xa9059cbb1234')).toBeNull(); // transfer selector, truncated args
  });

  it('extends the registry and skips invalid signatures', () => {
    const reg = createSelectorRegistry(['function vote(uint256 id, bool yes)', 'nonsense(']);
    expect(reg.rejected).toEqual(['nonsense(']);
    const data = encodeFunctionData({
      abi: parseAbi(['function vote(uint256 id, bool yes)']),
      args: [3n, true],
    });
    expect(decodeCall(data, reg)?.inputs).toEqual([
      { name: 'id', type: 'uint256', value: '3' },
      { name: 'yes', type: 'bool', value: 'true' },
    ]);
  });

  it('bundles every standard signature without errors', () => {
    expect(createSelectorRegistry().rejected).toEqual([]);
  });
});
