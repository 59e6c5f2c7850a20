import { describe, expect, it } from 'vitest';
import { attributeSales, paymentTokensOf, type SaleTxInput } from './nft-sales.js';

const zero = '0x0000000000000000000000000000000000000000';
const seller = '0x1111111111111111111111111111111111111111';
const seller2 = '0x1212121212121212121212121212121212121212';
const buyer = '0x2222222222222222222222222222222222222222';
const market = '0x3333333333333333333333333333333333333333';
const feeSink = '0x4444444444444444444444444444444444444444';
const nft = '0x5555555555555555555555555555555555555555';
const weth = '0x6666666666666666666666666666666666666666';
const usdc = '0x7777777777777777777777777777777777777777';
const other = '0x8888888888888888888888888888888888888888';
const eth = 10n ** 18n;
const tokens = paymentTokensOf({
  wrappedNative: weth as `0x${string}`,
  stablecoins: [usdc as `0x${string}`],
});

function tx(partial: Partial<SaleTxInput>): SaleTxInput {
  return {
    chainId: 31337,
    blockNumber: 100n,
    blockTime: new Date('2026-11-20T00:00:00Z'),
    txHash: '0xABC',
    from: buyer,
    to: market,
    value: 0n,
    nftTransfers: [],
    erc20Transfers: [],
    internalTransfers: [],
    ...partial,
  };
}

describe('paymentTokensOf', () => {
  it('lists wrapped native then stablecoins, lower-cased, without duplicates', () => {
    expect(
      paymentTokensOf({
        wrappedNative: '0xABCD' as `0x${string}`,
        stablecoins: ['0xabcd', '0xEF' as `0x${string}`],
      }),
    ).toEqual(['0xabcd', '0xef']);
    expect(paymentTokensOf({ stablecoins: [] })).toEqual([]);
  });
});

describe('attributeSales', () => {
  it('a paid transfer: buyer pays native to a marketplace that forwards to the seller (fees included in the price)', () => {
    const sales = attributeSales(
      tx({
        value: eth,
        nftTransfers: [
          { logIndex: 3, contract: nft, tokenId: 7n, from: seller, to: buyer, quantity: 1n },
        ],
        internalTransfers: [
          { from: market, to: seller, value: (eth * 975n) / 1000n },
          { from: market, to: feeSink, value: (eth * 25n) / 1000n },
        ],
      }),
      tokens,
    );
    expect(sales).toEqual([
      {
        chainId: 31337,
        contract: nft,
        tokenId: 7n,
        blockNumber: 100n,
        blockTime: new Date('2026-11-20T00:00:00Z'),
        txHash: '0xabc',
        logIndex: 3,
        seller,
        buyer,
        quantity: 1n,
        paymentToken: 'native',
        price: eth,
      },
    ]);
  });

  it('a batch sale: one payment split evenly across the NFTs moved (ERC1155 per unit)', () => {
    const sales = attributeSales(
      tx({
        value: 3n * eth,
        nftTransfers: [
          { logIndex: 1, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
          { logIndex: 2, contract: nft, tokenId: 2n, from: seller, to: buyer, quantity: 1n },
          { logIndex: 4, contract: other, tokenId: 9n, from: seller, to: buyer, quantity: 4n },
        ],
        internalTransfers: [{ from: market, to: seller, value: 3n * eth }],
      }),
      tokens,
    );
    expect(sales.map((s) => [s.tokenId, s.quantity, s.price])).toEqual([
      [1n, 1n, (3n * eth) / 6n],
      [2n, 1n, (3n * eth) / 6n],
      [9n, 4n, (3n * eth) / 6n],
    ]);
  });

  it('a batch from two sellers shares the buyer payment in proportion to what each received', () => {
    const sales = attributeSales(
      tx({
        value: 4n * eth,
        nftTransfers: [
          { logIndex: 1, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
          { logIndex: 2, contract: nft, tokenId: 2n, from: seller2, to: buyer, quantity: 1n },
        ],
        internalTransfers: [
          { from: market, to: seller, value: 3n * eth - eth / 10n },
          { from: market, to: seller2, value: eth - eth / 10n },
          { from: market, to: feeSink, value: eth / 5n },
        ],
      }),
      tokens,
    );
    const total = sales.reduce((sum, s) => sum + s.price, 0n);
    expect(sales.map((s) => s.seller)).toEqual([seller, seller2]);
    expect(sales[0]!.price).toBeGreaterThan(sales[1]!.price);
    expect(4n * eth - total).toBeLessThan(2n);
  });

  it('a free transfer is not a sale', () => {
    expect(
      attributeSales(
        tx({
          from: seller,
          to: nft,
          nftTransfers: [
            { logIndex: 0, contract: nft, tokenId: 5n, from: seller, to: buyer, quantity: 1n },
          ],
        }),
        tokens,
      ),
    ).toEqual([]);
  });

  it('paying someone other than the seller is not a sale (traced)', () => {
    expect(
      attributeSales(
        tx({
          value: eth,
          nftTransfers: [
            { logIndex: 0, contract: nft, tokenId: 5n, from: seller, to: buyer, quantity: 1n },
          ],
          internalTransfers: [{ from: market, to: feeSink, value: eth }],
        }),
        tokens,
      ),
    ).toEqual([]);
  });

  it('mints, burns and self-transfers are not sales even when money moves', () => {
    expect(
      attributeSales(
        tx({
          value: eth,
          to: nft,
          nftTransfers: [
            { logIndex: 0, contract: nft, tokenId: 1n, from: zero, to: buyer, quantity: 1n },
            { logIndex: 1, contract: nft, tokenId: 2n, from: buyer, to: zero, quantity: 1n },
            { logIndex: 2, contract: nft, tokenId: 3n, from: buyer, to: buyer, quantity: 1n },
          ],
          internalTransfers: [{ from: nft, to: buyer, value: 1n }],
        }),
        tokens,
      ),
    ).toEqual([]);
  });

  it('an accepted WETH offer: the seller sends the transaction, the buyer pays WETH (fee included)', () => {
    const sales = attributeSales(
      tx({
        from: seller,
        value: 0n,
        nftTransfers: [
          { logIndex: 5, contract: nft, tokenId: 3n, from: seller, to: buyer, quantity: 1n },
        ],
        erc20Transfers: [
          { logIndex: 6, token: weth, from: buyer, to: seller, value: 95n },
          { logIndex: 7, token: weth, from: buyer, to: feeSink, value: 5n },
        ],
      }),
      tokens,
    );
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ paymentToken: weth, price: 100n, seller, buyer });
  });

  it('a stablecoin payment counts; an unrelated ERC20 does not', () => {
    const base = {
      nftTransfers: [
        { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
      ],
    };
    const paid = attributeSales(
      tx({
        ...base,
        erc20Transfers: [
          {
            logIndex: 1,
            token: usdc.toUpperCase().replace('0X', '0x'),
            from: buyer,
            to: seller,
            value: 25_000_000n,
          },
        ],
      }),
      tokens,
    );
    expect(paid[0]).toMatchObject({ paymentToken: usdc, price: 25_000_000n });
    const junk = attributeSales(
      tx({
        ...base,
        erc20Transfers: [{ logIndex: 1, token: other, from: buyer, to: seller, value: 10n }],
      }),
      tokens,
    );
    expect(junk).toEqual([]);
  });

  it('an escrowed bid: buyer paid nothing in this transaction, the seller proceeds are the price', () => {
    const sales = attributeSales(
      tx({
        from: seller,
        nftTransfers: [
          { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
        ],
        internalTransfers: [{ from: market, to: seller, value: 2n * eth }],
      }),
      tokens,
    );
    expect(sales[0]).toMatchObject({ paymentToken: 'native', price: 2n * eth });
  });

  it('without traces, the buyer-sent top-level value is the price', () => {
    const sales = attributeSales(
      tx({
        value: 2n * eth,
        internalTransfers: undefined,
        nftTransfers: [
          { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
          { logIndex: 1, contract: nft, tokenId: 2n, from: seller, to: buyer, quantity: 1n },
        ],
      }),
      tokens,
    );
    expect(sales.map((s) => s.price)).toEqual([eth, eth]);
    // ...but not when the value went to the NFT contract itself (a fee, not a purchase).
    expect(
      attributeSales(
        tx({
          to: nft,
          value: eth,
          internalTransfers: undefined,
          nftTransfers: [
            { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 1n },
          ],
        }),
        tokens,
      ),
    ).toEqual([]);
  });

  it('merges duplicate ids inside one ERC1155 batch log', () => {
    const sales = attributeSales(
      tx({
        value: 10n,
        nftTransfers: [
          { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 2n },
          { logIndex: 0, contract: nft, tokenId: 1n, from: seller, to: buyer, quantity: 3n },
        ],
        internalTransfers: [{ from: market, to: seller, value: 10n }],
      }),
      tokens,
    );
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ quantity: 5n, price: 2n });
  });
});
