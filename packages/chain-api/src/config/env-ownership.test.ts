import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `process.env`, `process['env']` or `{ env } = process`: a read of the environment. */
const envRead =
  /\bprocess\s*(?:\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/;

/** Source files (tests aside) under `root` that read the environment outside `config/`. */
function envReadersOutsideConfig(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
        const rel = relative(root, path).split(sep).join('/');
        if (rel.startsWith('config/')) continue;
        // Comments may mention process.env (e.g. an example); code may not.
        const code = readFileSync(path, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/^\s*\/\/.*$/gm, '');
        if (envRead.test(code)) found.push(rel);
      }
    }
  };
  walk(root);
  return found.sort();
}

describe('the environment is read in src/config only', () => {
  it('holds for chain-api', () => {
    expect(envReadersOutsideConfig(srcRoot)).toEqual([]);
  });

  it('names a module that reads the environment itself', () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-env-scan-'));
    try {
      mkdirSync(join(root, 'config'));
      mkdirSync(join(root, 'api'));
      writeFileSync(join(root, 'config', 'load.ts'), 'export const port = process.env.PORT;\n');
      writeFileSync(join(root, 'api', 'fine.ts'), '// process.env is read in config\n');
      writeFileSync(join(root, 'api', 'dotted.ts'), 'const port = process.env.PORT;\n');
      writeFileSync(join(root, 'api', 'indexed.ts'), "const env = process['env'];\n");
      writeFileSync(join(root, 'api', 'destructured.ts'), 'const { env } = process;\n');
      writeFileSync(join(root, 'api', 'reads.test.ts'), 'const url = process.env.TEST_URL;\n');
      expect(envReadersOutsideConfig(root)).toEqual([
        'api/destructured.ts',
        'api/dotted.ts',
        'api/indexed.ts',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
