import { TOPIC } from '../decode/index.js';
import type { ActivityRow, DerivedBatch } from '../derive/index.js';

/**
 * Settles the Deposit/Withdrawal events of contracts the registry does not name as wrapped native
 * (WETH9 clones on every L2, wrappers at unknown addresses): when the emitter is an ERC20 (by its
 * stored or freshly read metadata) they become mint/burn movements and balance deltas like the
 * registered wrapped native's; otherwise (a vault or staking contract reusing the signature) their
 * rows are dropped and the logs kept as undecoded. Returns the ERC20 wrapper tokens of the batch.
 *
 * @example
 * const wrappers = applyWrapperMoves(batch, (a) => standards.get(a));
 */
export function applyWrapperMoves(
  batch: DerivedBatch,
  standardOf: (token: string) => string | undefined,
): Set<string> {
  const tokens = new Set<string>();
  if (batch.wrapperMoves.length === 0) return tokens;
  const dropped = new Set<ActivityRow>();
  const droppedTokens = new Set<string>();
  for (const m of batch.wrapperMoves) {
    if (standardOf(m.token) !== 'erc20') {
      if (m.row) dropped.add(m.row);
      droppedTokens.add(m.token);
      continue;
    }
    tokens.add(m.token);
    const key = `${m.wallet}|${m.token}`;
    const prev = batch.erc20Deltas.get(key);
    if (prev) {
      prev.delta += m.delta;
      if (m.block > prev.block) prev.block = m.block;
      if (m.delta > 0n && (!prev.acquired || m.time < prev.acquired)) prev.acquired = m.time;
      if (m.delta < 0n) prev.sent = true;
    } else {
      batch.erc20Deltas.set(key, {
        wallet: m.wallet,
        token: m.token,
        delta: m.delta,
        block: m.block,
        ...(m.delta > 0n ? { acquired: m.time } : {}),
        sent: m.delta < 0n,
      });
    }
  }
  if (dropped.size > 0) batch.activity = batch.activity.filter((r) => !dropped.has(r));
  if (droppedTokens.size > 0) {
    for (const l of batch.logs) {
      if (l.decoded && droppedTokens.has(l.address) && isWrapperTopic(l.topics[0])) {
        l.decoded = false;
        batch.eventCount--;
      }
    }
  }
  batch.wrapperMoves = [];
  return tokens;
}

function isWrapperTopic(topic: string | undefined): boolean {
  return topic === TOPIC.deposit || topic === TOPIC.withdrawal;
}
