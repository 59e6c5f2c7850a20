// Generates the payload types in src/payloads/generated/ from @octokit/openapi-webhooks-types
// (the schemas octokit's own types come from), with the provider rename applied to identifiers:
// `performed_via_github_app` -> `performed_via_provider_app`, `github-app-authorization-*` ->
// `provider-app-authorization-*`. Doc comments are kept as published upstream.
//
// Run after upgrading the devDependency: `npm run generate:types -w @sluice/webhooks`.
// The output is committed, so builds and type checks never depend on this script.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventTable } from '../src/event-names/event-table.js';

const require = createRequire(import.meta.url);
const upstreamPackage = '@octokit/openapi-webhooks-types';
const upstreamDir = dirname(require.resolve(`${upstreamPackage}/package.json`));
const upstreamVersion = (
  JSON.parse(readFileSync(join(upstreamDir, 'package.json'), 'utf8')) as { version: string }
).version;
const source = readFileSync(join(upstreamDir, 'types.d.ts'), 'utf8').split('\n');
// `--out <dir>` writes elsewhere (the freshness test compares that with the committed files).
const outFlag = process.argv.indexOf('--out');
const outDir =
  outFlag !== -1 && process.argv[outFlag + 1] !== undefined
    ? process.argv[outFlag + 1]!
    : join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'payloads', 'generated');

const isComment = (line: string): boolean => /^\s*(\/\*\*|\*|\/\/)/.test(line);

/** The provider rename, for code (never comments): identifiers only. */
function renameIdentifiers(line: string): string {
  return line.replace(/github/g, 'provider').replace(/GitHub|Github/g, 'Provider');
}

function blockLines(startPattern: RegExp, endPattern: RegExp): string[] {
  const start = source.findIndex((line) => startPattern.test(line));
  if (start === -1) throw new Error(`upstream layout changed: ${startPattern} not found`);
  const end = source.findIndex((line, index) => index > start && endPattern.test(line));
  if (end === -1) throw new Error(`upstream layout changed: end of ${startPattern} not found`);
  return source.slice(start + 1, end);
}

// components.schemas: every schema a webhook payload is built from.
const schemaLines = blockLines(/^ {2}schemas: \{$/, /^ {2}responses: never;$/);
if (schemaLines.pop()?.trim() !== '};') throw new Error('upstream layout changed: schemas end');
const renamedSchemaLines = schemaLines.map((line) => {
  if (isComment(line)) return line;
  const renamed = renameIdentifiers(line).replace(
    /components\["schemas"\]\["([^"]+)"\]/g,
    'WebhookSchemas["$1"]',
  );
  if (/github/i.test(renamed)) throw new Error(`rename missed: ${renamed}`);
  return renamed;
});

// Each schema's top-level `action` literal, by schema name (after the rename).
const schemaActions = new Map<string, string | undefined>();
{
  let current: string | undefined;
  for (const line of renamedSchemaLines) {
    const head = /^ {4}"?([A-Za-z0-9_.-]+)"?: /.exec(line);
    if (head?.[1] !== undefined) {
      current = head[1];
      schemaActions.set(current, undefined);
      continue;
    }
    const action = /^ {6}action: "([^"]+)";$/.exec(line);
    if (current !== undefined && action?.[1] !== undefined) schemaActions.set(current, action[1]);
  }
}

// The `webhooks` interface: definition name (e.g. `check-run-completed`) -> schema name.
const operationSchemas = new Map<string, string>();
{
  let operation: string | undefined;
  for (const line of blockLines(/^export interface operations \{$/, /^\}$/)) {
    const head = /^ {2}"?([A-Za-z0-9_/.-]+)"?: \{$/.exec(line);
    if (head?.[1] !== undefined) operation = head[1];
    const body = /"application\/json": components\["schemas"\]\["([^"]+)"\];/.exec(line);
    if (operation !== undefined && body?.[1] !== undefined) {
      operationSchemas.set(operation, renameIdentifiers(body[1]));
    }
  }
}
const definitions = new Map<string, string>();
{
  let definition: string | undefined;
  for (const line of blockLines(/^export interface webhooks \{$/, /^\}$/)) {
    const head = /^ {2}"?([A-Za-z0-9_.-]+)"?: \{$/.exec(line);
    if (head?.[1] !== undefined) definition = renameIdentifiers(head[1]);
    const post = /^ {4}post: operations\["([^"]+)"\];$/.exec(line);
    if (definition !== undefined && post?.[1] !== undefined) {
      const schema = operationSchemas.get(post[1]);
      if (schema === undefined) throw new Error(`no request body schema for ${post[1]}`);
      definitions.set(definition, schema);
    }
  }
}

// Spec event (and action) -> upstream definition. Exact kebab-case name first; otherwise the
// one definition of that event whose payload `action` literal is the action
// (e.g. custom_property.promote_to_enterprise is `custom-property-promoted-to-enterprise`).
const kebab = (name: string): string => name.replaceAll('_', '-');
const used = new Set<string>();
function definitionFor(event: string, action?: string): string {
  const exact = action === undefined ? kebab(event) : `${kebab(event)}-${kebab(action)}`;
  if (definitions.has(exact)) return exact;
  // Upstream sometimes qualifies a name, e.g. `repository-dispatch-sample.collected`.
  const qualified = [...definitions.keys()].filter((name) => name.startsWith(`${exact}.`));
  if (qualified.length === 1 && qualified[0] !== undefined) return qualified[0];
  if (action !== undefined) {
    const matches = [...definitions.keys()].filter(
      (name) =>
        name.startsWith(`${kebab(event)}-`) &&
        schemaActions.get(definitions.get(name) ?? '') === action,
    );
    if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  }
  throw new Error(`no upstream definition for ${action ? `${event}.${action}` : event}`);
}

const eventLines: string[] = [];
const actionLines: string[] = [];
for (const [event, actions] of eventTable) {
  const names = actions.length === 0 ? [definitionFor(event)] : [];
  for (const action of actions) {
    const name = definitionFor(event, action);
    names.push(name);
    actionLines.push(`  '${event}.${action}': WebhookDefinitions['${name}'];`);
  }
  for (const name of names) used.add(name);
  eventLines.push(
    `  ${event}: ${names.map((name) => `WebhookDefinitions['${name}']`).join(' | ')};`,
  );
}
const unused = [...definitions.keys()].filter((name) => !used.has(name));

const banner = [
  `// GENERATED by scripts/generate-payload-types.ts from ${upstreamPackage}@${upstreamVersion}.`,
  '// Do not edit by hand: change the script and run `npm run generate:types -w @sluice/webhooks`.',
  '// Provider rename applied to identifiers; doc comments are upstream text.',
  '',
];

const schemasFile = [
  ...banner,
  '/** `OneOf` helpers of openapi-typescript: exactly one of several object shapes. */',
  'type Without<T, U> = { [P in Exclude<keyof T, keyof U>]?: never };',
  'type XOR<T, U> = T | U extends object ? (Without<T, U> & U) | (Without<U, T> & T) : T | U;',
  'type OneOf<T extends unknown[]> = T extends [infer Only]',
  '  ? Only',
  '  : T extends [infer A, infer B, ...infer Rest]',
  '    ? OneOf<[XOR<A, B>, ...Rest]>',
  '    : never;',
  '',
  '/** Every schema webhook payloads are built from, by upstream schema name (renamed). */',
  'export interface WebhookSchemas {',
  ...renamedSchemaLines.map((line) => line.slice(2)),
  '}',
  '',
].join('\n');

const definitionsFile = [
  ...banner,
  "import type { WebhookSchemas } from './webhook-schemas.js';",
  '',
  '/** Payload of each upstream webhook definition, e.g. `check-run-completed`. */',
  'export interface WebhookDefinitions {',
  ...[...definitions].map(([name, schema]) => `  '${name}': WebhookSchemas['${schema}'];`),
  '}',
  '',
  '/** Payload of each event (the union over its actions), by event name. */',
  'export interface EventPayloadMap {',
  ...eventLines,
  '}',
  '',
  '/** Payload of each `<event>.<action>` name. */',
  'export interface ActionPayloadMap {',
  ...actionLines,
  '}',
  '',
  `/** Upstream definitions no event of the spec's table uses (${unused.length}). */`,
  `export type UnmappedWebhookDefinition = ${unused.length === 0 ? 'never' : unused.map((name) => `'${name}'`).join(' | ')};`,
  '',
].join('\n');

writeFileSync(join(outDir, 'webhook-schemas.ts'), schemasFile);
writeFileSync(join(outDir, 'webhook-definitions.ts'), definitionsFile);
console.log(
  `generated ${definitions.size} definitions, ${eventTable.length} events, ${actionLines.length} actions from ${upstreamPackage}@${upstreamVersion}; unmapped: ${unused.join(', ') || 'none'}`,
);
