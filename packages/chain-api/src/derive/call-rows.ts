import { decodeCall } from '../decode/index.js';
import type { RpcTx } from '../rpc/rpc-types.js';
import { attachAuthorizations, senderRow } from './sent-transactions.js';
import { addRow, SUB_CALL, type TxScope } from './tx-scope.js';

/** Calls whose effect on the sender is fully shown by the event rows of the same transaction. */
const COVERED_CALLS = new Set([
  'transfer',
  'transferFrom',
  'approve',
  'increaseAllowance',
  'decreaseAllowance',
  'safeTransferFrom',
  'safeBatchTransferFrom',
  'setApprovalForAll',
  'deposit',
  'withdraw',
]);

/**
 * The sender's transaction-level rows, after the event rows: a call row unless the event rows
 * (or the swap row, `swapped`) already tell the whole story, the row every sent transaction gets,
 * and the authorizations the transaction carries on the sender's rows.
 */
export function senderRows(s: TxScope, tx: RpcTx, swapped: boolean): void {
  const { from, to, created, input, status, value, rows } = s;
  if (input.length > 2) {
    const fn = decodeCall(input, s.ctx.registry);
    const senderHasRows = rows.some((r) => r.wallet === from);
    const covered =
      status === 1 && (swapped || (fn !== null && COVERED_CALLS.has(fn.name) && senderHasRows));
    if (!covered) {
      addRow(s, from, 'call', null, -1, SUB_CALL, from, to ?? created, {
        value,
        extra: {
          function: to ? fn : null,
          selector: to && input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
          status: status === 1 ? 'success' : 'reverted',
          ...(to ? {} : { contract_creation: true }),
        },
      });
    }
  }

  // Every transaction the wallet sent is in its feed once, even one that moved nothing.
  const own = senderRow({ from, to: to ?? created, input, status, rows });
  if (own) {
    addRow(s, from, own.type, own.assetType, -1, SUB_CALL, from, to ?? created, {
      value,
      extra: own.extra,
    });
  }
  attachAuthorizations(tx, from, rows);
}
