import { createServer } from 'node:http';
import { tokenLogoSvg } from './token-logo.js';

/** What the metadata server answers for a path. */
export interface MetadataResponse {
  status: number;
  contentType: string;
  body: string;
}

const BACKGROUNDS = ['Blue', 'Red', 'Green'];
const ITEMS: Record<string, string> = { '1': 'Sword', '2': 'Shield', '3': 'Potion' };

const json = (status: number, value: unknown): MetadataResponse => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(value),
});

function svg(label: string): MetadataResponse {
  return {
    status: 200,
    contentType: 'image/svg+xml',
    body: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#234"/><text x="8" y="36" fill="#fff">${label}</text></svg>`,
  };
}

function punk(base: string, id: number, revealed: boolean) {
  const attributes: {
    trait_type: string;
    value: string | number | boolean;
    display_type?: string;
  }[] = [
    { trait_type: 'Background', value: BACKGROUNDS[id % 3]! },
    { trait_type: 'Level', value: id, display_type: 'number' },
    { trait_type: 'Rare', value: id % 4 === 0 },
  ];
  if (revealed) attributes.push({ trait_type: 'Revealed', value: true });
  return {
    name: revealed ? `Sluice Punk #${id} (revealed)` : `Sluice Punk #${id}`,
    description: 'One of the Sluice Punks, a devnet collection with off-chain metadata.',
    image: `${base}images/punk-${id}.svg`,
    external_url: `${base}punks/${id}`,
    attributes,
  };
}

/**
 * The metadata documents of the devnet collections, by request path (pure, so tests can compare
 * what an indexer stored with what was served):
 * - `/logos/<symbol>.svg`: a generated token logo (the devnet's token list points here);
 * - `/punks/<id>` (and `/punks/<id>-v2` after the ERC-4906 update), `/items/<id>.json` (id as 64
 *   hex digits per ERC-1155, or decimal), `/spam/<id>` (a lure), `/images/*.svg`;
 * - `/broken/<id>`: id % 3 = 1 truncated JSON (200), 2 → 404, 0 → 500.
 *
 * @example
 * JSON.parse(devnetNftMetadata('/punks/1', 'http://127.0.0.1:9000/').body).name; // 'Sluice Punk #1'
 */
export function devnetNftMetadata(path: string, baseUrl: string): MetadataResponse {
  const base = baseUrl.replace(/\/?$/, '/');
  let m = /^\/punks\/(\d{1,6})(-v2)?$/.exec(path);
  if (m) return json(200, punk(base, Number(m[1]), Boolean(m[2])));
  m = /^\/items\/([0-9a-fA-F]{64}|\d{1,6})\.json$/.exec(path);
  if (m) {
    const id = (m[1]!.length === 64 ? BigInt(`0x${m[1]}`) : BigInt(m[1]!)).toString();
    const item = ITEMS[id];
    if (!item) return json(404, { error: 'no such item' });
    return json(200, {
      name: item,
      description: `A ${item.toLowerCase()} from Sluice Items.`,
      image: `${base}images/item-${id}.svg`,
      attributes: [
        { trait_type: 'Kind', value: item },
        { trait_type: 'Power', value: Number(id) * 10 },
      ],
    });
  }
  m = /^\/spam\/(\d{1,6})$/.exec(path);
  if (m) {
    return json(200, {
      name: `Airdrop Pass #${m[1]}`,
      description:
        'Congratulations! You are eligible for 5,000 USDC. Claim your airdrop at https://bit.ly/usdc-bonus-claim before it expires.',
      image: `${base}images/spam.svg`,
      external_url: 'https://usdc-bonus.xyz/claim',
      attributes: [{ trait_type: 'Reward', value: '5000 USDC' }],
    });
  }
  m = /^\/broken\/(\d{1,6})$/.exec(path);
  if (m) {
    const id = Number(m[1]);
    if (id % 3 === 1) {
      return {
        status: 200,
        contentType: 'application/json',
        body: `{"name": "Broken Bear #${id}", "image": `,
      };
    }
    if (id % 3 === 2) return json(404, { error: 'not found' });
    return json(500, { error: 'internal error' });
  }
  m = /^\/logos\/([a-z0-9]{1,8})\.svg$/.exec(path);
  if (m) return { status: 200, contentType: 'image/svg+xml', body: tokenLogoSvg(m[1]!) };
  m = /^\/images\/([a-z]+(?:-\d{1,6})?)\.svg$/.exec(path);
  if (m) return svg(m[1]!);
  return json(404, { error: 'not found' });
}

export interface MetadataServer {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves {@link devnetNftMetadata} over HTTP on 127.0.0.1 (a free port by default).
 *
 * @example
 * const server = await startMetadataServer();
 * await fetch(`${server.url}punks/1`);
 */
export async function startMetadataServer(opts: { port?: number } = {}): Promise<MetadataServer> {
  let url = '';
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'method not allowed' }));
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const r = devnetNftMetadata(path, url);
    res.writeHead(r.status, {
      'content-type': r.contentType,
      'content-length': Buffer.byteLength(r.body),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : r.body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const port = (server.address() as { port: number }).port;
  url = `http://127.0.0.1:${port}/`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
