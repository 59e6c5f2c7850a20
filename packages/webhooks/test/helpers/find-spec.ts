import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Finds shared/spec/webhooks.md: $SLUICE_SPEC_DIR first, then `shared/spec` beside each
 * ancestor of this directory (CI checks the repository out with shared/ beside the clone).
 */
export function findSpec(): string | undefined {
  const fromEnv = process.env.SLUICE_SPEC_DIR;
  if (fromEnv && existsSync(join(fromEnv, 'webhooks.md'))) return join(fromEnv, 'webhooks.md');
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'shared', 'spec', 'webhooks.md');
    if (existsSync(candidate)) return candidate;
    const parent = resolve(dir, '..');
    if (parent === dir) return undefined;
    dir = parent;
  }
}
