/**
 * A secondary index as one `create index if not exists` statement: the text a migration runs and
 * the text a deferred build runs later (src/store/deferred-indexes.ts), so the two never differ.
 */
export interface IndexDefinition {
  readonly name: string;
  readonly table: string;
  /** `create [unique] index if not exists <name> on <table> ...` (no trailing semicolon). */
  readonly create: string;
}

const SHAPE = /^create (?:unique )?index if not exists ([a-z0-9_]+)\s+on ([a-z0-9_]+)[\s(]/;

/**
 * Names an index statement; throws unless it is a plain `create [unique] index if not exists`.
 *
 * @example
 * const idx = indexDefinition('create index if not exists logs_tx_idx on logs (chain_id)');
 * idx.name; // 'logs_tx_idx'
 */
export function indexDefinition(create: string): IndexDefinition {
  const sql = create.trim();
  const m = SHAPE.exec(sql);
  if (!m?.[1] || !m[2]) throw new Error(`not a create-index-if-not-exists statement: ${sql}`);
  return { name: m[1], table: m[2], create: sql };
}
