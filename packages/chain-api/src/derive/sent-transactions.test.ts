import { type Hex, numberToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { RpcTx } from '../rpc/rpc-types.js';
import type { ActivityRow } from './derived-batch.js';
import { attachAuthorizations, senderRow } from './sent-transactions.js';

const SENDER = '0x1111111111111111111111111111111111111111';
const BOB = '0x2222222222222222222222222222222222222222';
const TARGET = '0x00000000000000000000000000000000000c0de0';
const signer = privateKeyToAccount(`0x${'ab'.repeat(32)}`);

const row = (wallet: string, logIndex: number): ActivityRow => ({
  wallet,
  blockNumber: 1n,
  blockTime: new Date(0),
  txIndex: 0,
  logIndex,
  subIndex: 0,
  txHash: '0xaa',
  type: 'send',
  assetType: 'erc20',
  tokenAddress: null,
  from: wallet,
  to: BOB,
  value: 1n,
  tokenId: null,
  extra: null,
});

const tx = (authorizationList: RpcTx['authorizationList']): RpcTx => ({
  hash: '0xaa',
  from: SENDER,
  to: SENDER,
  value: '0x0',
  input: '0x',
  transactionIndex: '0x0',
  type: '0x4',
  authorizationList,
});

async function signed(address: Hex, nonce: number) {
  const a = await signer.signAuthorization({ chainId: 7, address, nonce });
  return {
    chainId: numberToHex(a.chainId),
    address: a.address,
    nonce: numberToHex(a.nonce),
    yParity: numberToHex(a.yParity ?? 0),
    r: a.r,
    s: a.s,
  };
}

describe('senderRow', () => {
  it('gives a zero-value self-send without calldata a native send row', () => {
    const own = senderRow({ from: SENDER, to: SENDER, input: '0x', status: 1, rows: [] });
    expect(own).toEqual({ type: 'send', assetType: 'native', extra: null });
  });

  it('labels a reverted transaction without calldata a reverted call', () => {
    const own = senderRow({ from: SENDER, to: BOB, input: '0x', status: 0, rows: [] });
    expect(own).toMatchObject({ type: 'call', assetType: null, extra: { status: 'reverted' } });
  });

  it('adds nothing when the sender already has a row of the transaction', () => {
    const rows = [row(BOB, 3), row(SENDER, 4)];
    expect(senderRow({ from: SENDER, to: BOB, input: '0x', status: 1, rows })).toBeNull();
    // A row of someone else only does not count.
    expect(
      senderRow({ from: SENDER, to: BOB, input: '0x', status: 1, rows: [row(BOB, 3)] }),
    ).not.toBeNull();
  });
});

describe('attachAuthorizations', () => {
  it('puts target and recovered authority on the sender row, zero address for a clearing', async () => {
    const rows = [row(BOB, 2), row(SENDER, 5), row(SENDER, -1)];
    const clearing = '0x0000000000000000000000000000000000000000';
    attachAuthorizations(tx([await signed(TARGET, 3), await signed(clearing, 4)]), SENDER, rows);
    const authority = signer.address.toLowerCase();
    expect(rows[2]?.extra).toEqual({
      authorization_list: [
        { chain_id: 7, address: TARGET, nonce: '3', authority },
        { chain_id: 7, address: clearing, nonce: '4', authority },
      ],
    });
    expect(rows[0]?.extra).toBeNull();
    expect(rows[1]?.extra).toBeNull();
  });

  it('keeps a bad signature as an entry with no authority, and ignores other transactions', async () => {
    const bad = { ...(await signed(TARGET, 1)), r: '0x00' as Hex };
    const rows = [row(SENDER, -1)];
    attachAuthorizations(tx([bad]), SENDER, rows);
    expect(rows[0]?.extra).toEqual({
      authorization_list: [{ chain_id: 7, address: TARGET, nonce: '1', authority: null }],
    });
    const plain = [row(SENDER, -1)];
    attachAuthorizations({ ...tx(undefined), type: '0x2' }, SENDER, plain);
    expect(plain[0]?.extra).toBeNull();
  });
});
