import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../scripts/generate-payload-types.ts', import.meta.url));
const committed = fileURLToPath(new URL('../src/payloads/generated/', import.meta.url));

describe('generated payload types', () => {
  it('match what the generator writes from the installed @octokit/openapi-webhooks-types', async () => {
    const out = await mkdtemp(join(tmpdir(), 'sluice-payload-types-'));
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script, '--out', out]);
      expect(stdout).toMatch(/generated \d+ definitions, 74 events/);
      for (const file of ['webhook-schemas.ts', 'webhook-definitions.ts']) {
        const fresh = await readFile(join(out, file), 'utf8');
        expect(fresh === (await readFile(join(committed, file), 'utf8')), file).toBe(true);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('carry the provider rename and no provider name in code', async () => {
    const schemas = await readFile(join(committed, 'webhook-schemas.ts'), 'utf8');
    const code = schemas
      .split('\n')
      .filter((line) => !/^\s*(\/\*\*|\*|\/\/)/.test(line))
      .join('\n');
    expect(code).not.toMatch(/github/i);
    expect(code).toContain('performed_via_provider_app');
    expect(code).toContain('"webhook-provider-app-authorization-revoked"');
  });
});
