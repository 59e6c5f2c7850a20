// Layers of src/, lowest first. A module imports only from its own folder or a lower layer; two
// folders of one layer never import each other except along the `sameLayer` edges below (each
// one-way, so no folder-level cycle can form). `npm run lint` runs this (see docs/architecture.md).
const layers = [
  ['text', 'errors', 'config'],
  ['chains', 'rpc', 'decode', 'net'],
  ['derive', 'shape'],
  ['store'],
  [
    'reorg',
    'reconcile',
    'pricing',
    'nft',
    'defi',
    'keys',
    'change-feed',
    'replicas',
    'subscriptions',
  ],
  ['ingest'],
  ['wallets'],
  ['api'],
  // `cli` is src/cli/ and src/cli.ts; `index` is src/index.ts (the package's exports).
  ['cli', 'devnet', 'index'],
];

// Allowed imports between folders of one layer: [from, to].
const sameLayer = [
  // ConfigError extends the one error base.
  ['config', 'errors'],
  // Read routing waits on the change feed's fences.
  ['replicas', 'change-feed'],
  // The CLI starts the devnet.
  ['cli', 'devnet'],
  // Deliveries are charged to the owning key's compute units.
  ['subscriptions', 'keys'],
];

/** Matches `src/<name>/...` (a folder) or `src/<name>` and `src/<name>.ts` (a root module). */
const under = (names) => `^src/(${names.join('|')})(/|\\.ts$|$)`;

const notTests = '\\.test\\.ts$|\\.test-d\\.ts$|/__fixtures__/';

const layerRules = layers.flatMap((names, level) => {
  const higher = layers.slice(level + 1).flat();
  const rules = [];
  if (higher.length > 0) {
    rules.push({
      name: `layer-${level}-no-upward-import`,
      comment: `${names.join(', ')} (layer ${level}) must not import a higher layer: ${higher.join(', ')}`,
      severity: 'error',
      from: { path: under(names), pathNot: notTests },
      to: { path: under(higher) },
    });
  }
  for (const name of names) {
    const allowed = sameLayer.filter(([from]) => from === name).map(([, to]) => to);
    const forbidden = names.filter((n) => n !== name && !allowed.includes(n));
    if (forbidden.length === 0) continue;
    rules.push({
      name: `layer-${level}-${name}-no-sideways-import`,
      comment: `${name} must not import ${forbidden.join(', ')} (same layer ${level})`,
      severity: 'error',
      from: { path: under([name]), pathNot: notTests },
      to: { path: under(forbidden) },
    });
  }
  return rules;
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules import each other in a cycle: move the shared part down a layer.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-test-code-in-src',
      comment: 'Shipped code must not import tests or test helpers (they belong in test/support).',
      severity: 'error',
      from: { path: '^src/', pathNot: notTests },
      to: { path: `${notTests}|^test/` },
    },
    {
      name: 'no-test-only-src',
      comment:
        'A src module that neither entry point (src/index.ts, src/cli.ts) reaches only serves tests: move it to test/support.',
      severity: 'error',
      from: { path: '^src/(index|cli)\\.ts$' },
      to: {
        path: '^src/',
        pathNot: `${notTests}|\\.d\\.ts$|^src/(index|cli)\\.ts$`,
        reachable: false,
      },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|test)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
