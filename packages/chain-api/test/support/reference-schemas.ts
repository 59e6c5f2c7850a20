import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The peer's published OpenAPI document, found beside the repository: CI runs with `shared/`
 * next to the clone, developers have it at /work/shared. SIM_OPENAPI_PATH overrides.
 */
export function findReferenceFile(): string | undefined {
  const candidates = [process.env.SIM_OPENAPI_PATH];
  // Walk up from this file: <dir>/shared/reference and <dir>/../shared/reference at every level.
  let dir = here;
  for (let i = 0; i < 8; i++) {
    candidates.push(join(dir, 'shared/reference/sim-openapi.json'));
    dir = dirname(dir);
  }
  candidates.push('/work/shared/reference/sim-openapi.json');
  return candidates.find((path): path is string => !!path && existsSync(resolve(path)));
}

let ajv: Ajv | undefined;

function referenceAjv(): Ajv | undefined {
  if (ajv) return ajv;
  const file = findReferenceFile();
  if (!file) {
    if (process.env.CI === 'true') {
      throw new Error('sim-openapi.json not found (expected shared/reference beside the repo)');
    }
    return undefined;
  }
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { components: unknown; paths: unknown };
  const instance = new Ajv({ strict: false, allErrors: true });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  addFormats(instance);
  // OpenAPI's numeric formats are size hints; "address" is the peer's own.
  for (const name of ['int32', 'int64', 'float', 'double']) instance.addFormat(name, true);
  instance.addFormat('address', /^0x[a-fA-F0-9]{40}$/);
  instance.addSchema({ $id: 'sim', components: doc.components, paths: doc.paths });
  ajv = instance;
  return ajv;
}

/** True when the reference file is available (always true under CI, which fails otherwise). */
export const referenceAvailable = (): boolean => referenceAjv() !== undefined;

/** A validator for `#/components/schemas/<name>` of the reference document. */
export function referenceValidator(name: string): ValidateFunction {
  const instance = referenceAjv();
  if (!instance) throw new Error('reference schemas unavailable');
  return (
    instance.getSchema(`sim#/components/schemas/${name}`) ??
    instance.compile({ $ref: `sim#/components/schemas/${name}` })
  );
}

/** Asserts `body` matches the reference schema `name`, with ajv's errors in the message. */
export function assertMatchesReference(name: string, body: unknown): void {
  const validate = referenceValidator(name);
  if (!validate(body)) {
    throw new Error(`response does not match ${name}: ${JSON.stringify(validate.errors, null, 2)}`);
  }
}

/**
 * Asserts `body` matches the inline response schema of a reference path (for answers the peer
 * defines in place, not under components), e.g. ('/v1/evm/defi/supported-protocols', '200').
 */
export function assertMatchesReferencePath(path: string, status: string, body: unknown): void {
  const instance = referenceAjv();
  if (!instance) throw new Error('reference schemas unavailable');
  const pointer = [
    'paths',
    path,
    'get',
    'responses',
    status,
    'content',
    'application/json',
    'schema',
  ]
    .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
    .join('/');
  const ref = `sim#/${pointer}`;
  const validate = instance.getSchema(ref) ?? instance.compile({ $ref: ref });
  if (!validate(body)) {
    throw new Error(
      `response does not match ${path} ${status}: ${JSON.stringify(validate.errors, null, 2)}`,
    );
  }
}
