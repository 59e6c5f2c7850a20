/**
 * A WAL position (`pg_lsn`, printed as `16/B374D848`) as a number, so positions read from the
 * primary and from standbys compare with `<`.
 *
 * @example
 * parseLsn('1/0') > parseLsn('0/FFFFFFFF'); // true
 */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) throw new TypeError(`not a WAL position: ${JSON.stringify(text.slice(0, 40))}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/**
 * The `pg_lsn` text of a position.
 *
 * @example
 * formatLsn(parseLsn('16/B374D848')); // '16/B374D848'
 */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * The primary's WAL position, after flushing WAL up to it. The indexer commits asynchronously,
 * so its batches can sit unflushed (unsent to standbys) for up to 3 x `wal_writer_delay`; this
 * writes one transactional logical message (a few bytes of WAL, no table), whose synchronous
 * commit flushes everything before it. A standby that has replayed the returned position has
 * every transaction committed before the call.
 *
 * @example
 * const lsn = await flushedPrimaryPosition(primary);
 */
export async function flushedPrimaryPosition(db: {
  query<Row>(sql: string): Promise<{ rows: Row[] }>;
}): Promise<bigint> {
  const { rows } = await db.query<{ lsn: string }>(
    `select pg_logical_emit_message(true, 'sluice-read-fence', '')::text as lsn`,
  );
  return parseLsn(rows[0]!.lsn);
}
