import { swapFromLegs } from './swap-legs.js';
import { addRow, SUB_SWAP, type TxScope } from './tx-scope.js';

/**
 * One swap row for the trader (the sender), from its net token flows in the transaction.
 * Returns whether it was added.
 */
export function swapRow(s: TxScope): boolean {
  const { from, to, value } = s;
  const lastSwap = s.swapLogs[s.swapLogs.length - 1];
  if (s.status !== 1 || !lastSwap) return false;
  const net = new Map<string, bigint>();
  const bump = (token: string, v: bigint) => net.set(token, (net.get(token) ?? 0n) + v);
  for (const t of s.erc20Transfers) {
    if (t.to === from) bump(t.token, t.value);
    if (t.from === from) bump(t.token, -t.value);
  }
  if (value > 0n && to) bump('native', -value);
  for (const t of s.internal ?? []) {
    if (t.to === from) bump('native', t.value);
    if (t.from === from) bump('native', -t.value);
  }
  let sold: [string, bigint] | undefined;
  let bought: [string, bigint] | undefined;
  for (const entry of net) {
    if (entry[1] < 0n && (!sold || entry[1] < sold[1])) sold = entry;
    if (entry[1] > 0n && (!bought || entry[1] > bought[1])) bought = entry;
  }
  if (!sold || !bought) {
    // Flows show one side only (tokens sent to the pair earlier): the pools' events tell.
    const fromLegs = swapFromLegs(s.legs, from);
    if (fromLegs) {
      sold = [fromLegs.sold[0], -fromLegs.sold[1]];
      bought = fromLegs.bought;
    }
  }
  if (!sold || !bought) return false;
  addRow(s, from, 'swap', 'erc20', lastSwap.logIndex, SUB_SWAP, from, from, {
    extra: {
      from_token_address: sold[0],
      from_token_value: (-sold[1]).toString(),
      to_token_address: bought[0],
      to_token_value: bought[1].toString(),
      pools: [...new Set(s.swapLogs.map((l) => l.pool))],
      dex: lastSwap.dex,
    },
  });
  return true;
}
