import { erc20Delta } from './batch-deltas.js';
import { ZERO_ADDRESS } from './derive-context.js';
import type { ActivityRow } from './derived-batch.js';
import { addRow, type EventOf, movement, seenToken, type TxScope } from './tx-scope.js';

/** Rows, balance delta and sale input of an ERC20 Transfer. */
export function erc20Transfer(s: TxScope, ev: EventOf<'erc20_transfer'>, logIndex: number): void {
  const { out, blockNumber, time } = s;
  seenToken(out, ev.address, 'erc20', blockNumber);
  movement(s, ev.from, ev.to, 'erc20', logIndex, 0, {
    tokenAddress: ev.address,
    value: ev.value,
  });
  erc20Delta(out, ev.from, ev.address, -ev.value, blockNumber, time, 'out');
  erc20Delta(
    out,
    ev.to,
    ev.address,
    ev.value,
    blockNumber,
    time,
    ev.from === ev.to ? 'self' : 'in',
  );
  s.erc20Transfers.push({
    logIndex,
    token: ev.address,
    from: ev.from,
    to: ev.to,
    value: ev.value,
  });
}

/** The owner's approve row of an ERC20 or ERC721 Approval, or an ApprovalForAll. */
export function approval(
  s: TxScope,
  ev: EventOf<'erc20_approval' | 'erc721_approval' | 'approval_for_all'>,
  logIndex: number,
): void {
  const { out, blockNumber } = s;
  switch (ev.kind) {
    case 'erc20_approval':
      seenToken(out, ev.address, 'erc20', blockNumber);
      addRow(s, ev.owner, 'approve', 'erc20', logIndex, 0, ev.owner, ev.spender, {
        tokenAddress: ev.address,
        value: ev.value,
      });
      break;
    case 'erc721_approval':
      seenToken(out, ev.address, 'erc721', blockNumber);
      addRow(s, ev.owner, 'approve', 'erc721', logIndex, 0, ev.owner, ev.approved, {
        tokenAddress: ev.address,
        tokenId: ev.tokenId,
      });
      break;
    case 'approval_for_all':
      seenToken(out, ev.address, 'unknown', blockNumber);
      // asset_type is settled from the token's standard by resolveApprovalStandards.
      addRow(s, ev.owner, 'approve', 'erc721', logIndex, 0, ev.owner, ev.operator, {
        tokenAddress: ev.address,
        extra: { operator: true, approved: ev.approved },
      });
      break;
  }
}

/**
 * A Deposit/Withdrawal of any contract: the registry's wrapped native moves balances here; any
 * other emitter is a WETH9-clone candidate, kept aside until its metadata says it is an ERC20
 * (src/reconcile/wrapper-moves.ts).
 */
export function wrappedNativeMove(
  s: TxScope,
  ev: EventOf<'weth_deposit' | 'weth_withdrawal'>,
  logIndex: number,
): void {
  const { out, blockNumber, time, rows } = s;
  const registered = ev.address === s.ctx.wrappedNative;
  const holder = ev.kind === 'weth_deposit' ? ev.dst : ev.src;
  // Some wrapped-native contracts also emit a mint/burn Transfer: don't count it twice.
  const twin = s.decoded.some(
    (d) =>
      d.ev.kind === 'erc20_transfer' &&
      d.ev.address === ev.address &&
      d.ev.value === ev.wad &&
      (ev.kind === 'weth_deposit'
        ? d.ev.from === ZERO_ADDRESS && d.ev.to === holder
        : d.ev.to === ZERO_ADDRESS && d.ev.from === holder),
  );
  if (twin) return;
  seenToken(out, ev.address, registered ? 'erc20' : 'unknown', blockNumber);
  const deposit = ev.kind === 'weth_deposit';
  const rowCount = rows.length;
  addRow(
    s,
    holder,
    deposit ? 'mint' : 'burn',
    'erc20',
    logIndex,
    0,
    deposit ? ZERO_ADDRESS : holder,
    deposit ? holder : ZERO_ADDRESS,
    {
      tokenAddress: ev.address,
      value: ev.wad,
      extra: { event: deposit ? 'Deposit' : 'Withdrawal' },
    },
  );
  if (registered)
    erc20Delta(
      out,
      holder,
      ev.address,
      deposit ? ev.wad : -ev.wad,
      blockNumber,
      time,
      deposit ? 'in' : 'out',
    );
  else if (holder !== ZERO_ADDRESS) {
    out.wrapperMoves.push({
      token: ev.address,
      wallet: holder,
      delta: deposit ? ev.wad : -ev.wad,
      block: blockNumber,
      time,
      row: rows.length > rowCount ? (rows[rows.length - 1] as ActivityRow) : null,
    });
  }
  s.erc20Transfers.push({
    logIndex,
    token: ev.address,
    from: deposit ? ZERO_ADDRESS : holder,
    to: deposit ? holder : ZERO_ADDRESS,
    value: ev.wad,
  });
}
