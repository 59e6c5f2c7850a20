import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A statement that writes or defines a table, found in a source file. */
export interface SqlWrite {
  file: string;
  line: number;
  statement: string;
}

/** Statement openings that change rows or schema (case-insensitive, any whitespace). */
const WRITES: readonly RegExp[] = [
  /\binsert\s+into\s+[\w"$]/i,
  /\bupdate\s+[\w"$]+(?:\s+(?:as\s+)?\w+)?\s+set\b/i,
  /\bdelete\s+from\s+[\w"$]/i,
  /\bcopy\s+[\w"$]+\s*(?:\(|from\b|to\b)/i,
  /\btruncate\s+(?:table\s+)?[\w"$]/i,
  /\bcreate\s+(?:unique\s+)?index\b/i,
  /\b(?:create|alter|drop)\s+table\b/i,
  /\bcreate\s+(?:or\s+replace\s+)?(?:function|trigger)\b/i,
];

/** Comment lines (line comments, JSDoc and block comment bodies) are prose, not statements. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*)/;

/**
 * The write/schema statements in one file's text: each line (outside comments) where such a
 * statement opens. Statements split across lines are found where their keywords are adjacent.
 *
 * @example
 * findSqlWrites('x.ts', "await db.query('delete from t where id = 1')"); // [{ line: 1, ... }]
 */
export function findSqlWrites(file: string, text: string): SqlWrite[] {
  const found: SqlWrite[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    if (COMMENT.test(raw)) return;
    // A statement's keywords may end one line and continue on the next (`update t\n set`).
    const window = `${raw} ${lines[i + 1] && !COMMENT.test(lines[i + 1] as string) ? lines[i + 1] : ''}`;
    const hit = WRITES.find(
      (re) => re.test(raw) || (re.test(window) && !re.test(lines[i + 1] ?? '')),
    );
    if (hit) found.push({ file, line: i + 1, statement: raw.trim() });
  });
  return found;
}

/** Every `.ts` file under `dir` (recursively), relative to `root`, except test files. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(root, path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(relative(root, join(root, path)));
    }
  }
  return out;
}

/** The write/schema statements of every source file under `root/dir` outside `allowed` folders. */
export function sqlWritesOutside(
  root: string,
  dir: string,
  allowed: readonly string[],
): SqlWrite[] {
  return sourceFiles(root, dir)
    .filter((f) => !allowed.some((a) => f.startsWith(a)))
    .flatMap((f) => findSqlWrites(f, readFileSync(join(root, f), 'utf8')));
}
