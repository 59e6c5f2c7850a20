import { ConfigError } from '../errors/index.js';

/** The environment as `loadConfig` reads it (process.env, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's trimmed value, undefined when unset or blank. */
export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** An integer setting in [min, max]; ConfigError naming the variable otherwise. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number) {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** One of `allowed` (case-insensitive), `fallback` when unset. */
export function oneOf<T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = env[name]?.trim().toLowerCase() || fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    const choices = allowed.map((a) => `"${a}"`);
    const list =
      choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices[0];
    throw new ConfigError(name, `${name} must be ${list}, got "${raw}"`);
  }
  return raw as T;
}

/** `true`/`false`/`1`/`0` (case-insensitive); `fallback` when unset. */
export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase() ?? '';
  if (raw === '') return fallback;
  if (!['true', 'false', '1', '0'].includes(raw)) {
    throw new ConfigError(name, `${name} must be true or false, got "${env[name]}"`);
  }
  return raw === 'true' || raw === '1';
}

/** Comma-separated entries, trimmed, blanks dropped. */
export function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** A URL with one of `protocols`; the message names the variable, never the value (secrets). */
export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
  }
  return raw;
}
