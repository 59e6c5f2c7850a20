// Type-checks the `@example` blocks of every package's source: each block becomes a module in
// node_modules/.cache that imports the documented file's exports (and, for other names it uses,
// the one file of the package that exports them) and is compiled with the package settings.
// Values an example only refers to (a `db`, an `rpc`, a `batch`) are declared as `any`; a name
// it calls or constructs must exist, so a renamed or removed function fails the check.
// Run by `npm run typecheck`; `node scripts/check-examples.mjs --list` prints what it checked.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'node_modules', '.cache', 'sluice-examples');

/** Source files with examples: every package's src/, without generated code and tests. */
function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'node_modules')
        out.push(...sourceFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      if (!entry.name.endsWith('.d.ts')) out.push(path);
    }
  }
  return out;
}

/** The `@example` blocks of one file's JSDoc comments, as code. */
export function extractExamples(text) {
  const examples = [];
  for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const lines = comment[1].split('\n').map((l) => l.replace(/^\s*\* ?/, ''));
    let current;
    for (const line of lines) {
      const tag = /^@(\w+)/.exec(line.trim());
      if (tag) {
        if (current) examples.push(current);
        current = tag[1] === 'example' ? [] : undefined;
        const rest = line.trim().slice(tag[0].length).trim();
        if (current && rest) current.push(rest);
        continue;
      }
      if (current && !/^\s*```/.test(line)) current.push(line);
    }
    if (current) examples.push(current);
  }
  return examples.map((l) => l.join('\n').trim()).filter((code) => code.length > 0);
}

const jsPath = (file) => file.replace(/\.ts$/, '.js');

/** One module per example: hoisted imports, the file's exports, the code in an async body. */
function exampleModule(example, imports, declared) {
  const code = example.code.split('\n');
  const hoisted = code.filter((l) => /^import\s/.test(l));
  const body = code.filter((l) => !/^import\s/.test(l));
  const own = new Set([...hoisted.join('\n').matchAll(/\b(\w+)\b/g)].map((m) => m[1]));
  const lines = [...hoisted];
  const names = example.exports.filter((n) => !own.has(n));
  if (names.length > 0)
    lines.push(`import { ${names.join(', ')} } from '${jsPath(example.file)}';`);
  for (const [file, list] of imports) {
    const fresh = list.filter((n) => !own.has(n) && !names.includes(n));
    if (fresh.length > 0) lines.push(`import { ${fresh.join(', ')} } from '${jsPath(file)}';`);
  }
  for (const name of declared) lines.push(`declare const ${name}: any;`);
  lines.push(
    `// ${relative(root, example.file)}`,
    `export async function example(): Promise<void> {`,
  );
  lines.push(...body.map((l) => `  ${l}`), '}', '');
  return lines.join('\n');
}

const options = {
  target: ts.ScriptTarget.ES2022,
  // No DOM: its globals (`name`, `event`) would stand in for what an example takes as given.
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  // Values an example takes as given are `any`; callbacks on them would be implicit `any`.
  noImplicitAny: false,
  noUncheckedIndexedAccess: true,
  esModuleInterop: true,
  skipLibCheck: true,
  resolveJsonModule: true,
  allowImportingTsExtensions: false,
  noEmit: true,
  types: ['node'],
};

const NOT_FOUND = new Set([2304, 2552, 2582, 18004]);

function main() {
  const packagesDir = join(root, 'packages');
  const files = readdirSync(packagesDir).flatMap((p) => {
    try {
      return sourceFiles(join(packagesDir, p, 'src'));
    } catch {
      return [];
    }
  });
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  /** name -> files of the same package exporting it */
  const exportsOf = new Map();
  const byName = new Map();
  for (const file of files) {
    const sf = program.getSourceFile(file);
    const symbol = sf && checker.getSymbolAtLocation(sf);
    const names = symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : [];
    exportsOf.set(
      file,
      names.filter((n) => n !== 'default'),
    );
    const pkg = relative(packagesDir, file).split('/')[0];
    for (const n of names) {
      const key = `${pkg}:${n}`;
      byName.set(key, [...(byName.get(key) ?? []), file]);
    }
  }
  const examples = files.flatMap((file) =>
    extractExamples(readFileSync(file, 'utf8')).map((code, i) => ({
      file,
      code,
      exports: exportsOf.get(file) ?? [],
      out: join(
        outDir,
        `${relative(packagesDir, file).replaceAll('/', '__').replace(/\.ts$/, '')}__${i}.ts`,
      ),
    })),
  );
  if (process.argv.includes('--list')) {
    for (const e of examples) console.log(`${relative(root, e.file)}\n${e.code}\n`);
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const e of examples) writeFileSync(e.out, exampleModule(e, new Map(), []));

  // First pass: which names does each example take from outside?
  let previous = program;
  const compile = () => {
    const p = ts.createProgram(
      examples.map((e) => e.out),
      options,
      undefined,
      previous,
    );
    previous = p;
    // Only the examples' own diagnostics: the sources are checked by each package's typecheck.
    return examples.flatMap((e) => {
      const sf = p.getSourceFile(e.out);
      return sf ? [...p.getSyntacticDiagnostics(sf), ...p.getSemanticDiagnostics(sf)] : [];
    });
  };
  const missing = new Map();
  for (const d of compile()) {
    if (!NOT_FOUND.has(d.code) || d.start === undefined) continue;
    const name = d.file.text.slice(d.start, d.start + d.length);
    const callee =
      /^\s*(\(|<)/.test(d.file.text.slice(d.start + d.length)) ||
      /\bnew\s+$/.test(d.file.text.slice(0, d.start));
    const list = missing.get(d.file.fileName) ?? new Map();
    list.set(name, callee);
    missing.set(d.file.fileName, list);
  }
  for (const e of examples) {
    const names = missing.get(e.out);
    if (!names) continue;
    const pkg = relative(packagesDir, e.file).split('/')[0];
    const imports = new Map();
    const declared = [];
    for (const [name, callee] of names) {
      const owners = byName.get(`${pkg}:${name}`) ?? [];
      // Another file's export stands in for a name the example calls or spells as a class or
      // constant; a plain lower-case value (blockTime, chains) is the caller's own.
      if (owners.length > 0 && (callee || /^[A-Z]/.test(name))) {
        const owner = owners.find((f) => f.endsWith('/index.ts')) ?? owners[0];
        imports.set(owner, [...(imports.get(owner) ?? []), name]);
      } else if (!callee || /^[a-z][a-z0-9_]*$/.test(name)) {
        // A plain value the example refers to (db, rpc, batch): given.
        declared.push(name);
      }
      // A camelCase function or a class nobody exports stays missing: the example is wrong.
    }
    writeFileSync(e.out, exampleModule(e, imports, declared));
  }
  const errors = compile();
  const host = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  if (errors.length > 0) {
    console.error(ts.formatDiagnosticsWithColorAndContext(errors, host));
    console.error(
      `${errors.length} error(s) in @example blocks (generated in ${relative(root, outDir)})`,
    );
    process.exit(1);
  }
  console.log(`@example blocks: ${examples.length} type-checked`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
