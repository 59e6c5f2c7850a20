import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetNftMetadata, type MetadataServer, startMetadataServer } from './metadata-server.js';

const base = 'http://127.0.0.1:9/';

describe('devnetNftMetadata', () => {
  it('describes punks, with a revealed version after the ERC-4906 update', () => {
    const doc = JSON.parse(devnetNftMetadata('/punks/4', base).body);
    expect(doc).toMatchObject({ name: 'Sluice Punk #4', image: `${base}images/punk-4.svg` });
    expect(doc.attributes).toContainEqual({ trait_type: 'Rare', value: true });
    expect(JSON.parse(devnetNftMetadata('/punks/4-v2', base).body).name).toBe(
      'Sluice Punk #4 (revealed)',
    );
  });

  it('serves ERC1155 items by 64-hex-digit or decimal id', () => {
    const hex = `${'0'.repeat(63)}2`;
    expect(JSON.parse(devnetNftMetadata(`/items/${hex}.json`, base).body).name).toBe('Shield');
    expect(JSON.parse(devnetNftMetadata('/items/3.json', base).body).name).toBe('Potion');
    expect(devnetNftMetadata('/items/9.json', base).status).toBe(404);
  });

  it('serves spam lures and broken documents', () => {
    expect(JSON.parse(devnetNftMetadata('/spam/1', base).body).description).toMatch(
      /bit\.ly.*claim|claim.*bit\.ly/i,
    );
    const truncated = devnetNftMetadata('/broken/1', base);
    expect(truncated.status).toBe(200);
    expect(() => JSON.parse(truncated.body)).toThrow();
    expect(devnetNftMetadata('/broken/2', base).status).toBe(404);
    expect(devnetNftMetadata('/broken/3', base).status).toBe(500);
  });

  it('serves a generated SVG logo per token symbol', () => {
    const usdc = devnetNftMetadata('/logos/usdc.svg', base);
    expect(usdc).toMatchObject({ status: 200, contentType: 'image/svg+xml' });
    expect(usdc.body).toMatch(/^<svg [^>]*>.*>USDC<\/text><\/svg>$/);
    expect(devnetNftMetadata('/logos/wbtc.svg', base).body).not.toBe(usdc.body);
    for (const bad of [
      '/logos/USDC.svg',
      '/logos/<x>.svg',
      '/logos/.svg',
      '/logos/abcdefghi.svg',
    ]) {
      expect(devnetNftMetadata(bad, base).status, bad).toBe(404);
    }
  });

  it('answers 404 for anything else, including traversal attempts', () => {
    for (const path of [
      '/',
      '/punks/',
      '/punks/abc',
      '/../etc/passwd',
      '/images/../x.svg',
      '/punks/1/extra',
    ]) {
      expect(devnetNftMetadata(path, base).status, path).toBe(404);
    }
  });
});

describe('startMetadataServer', () => {
  let server: MetadataServer;
  beforeAll(async () => {
    server = await startMetadataServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves documents whose URLs point back at itself', async () => {
    const res = await fetch(`${server.url}punks/1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const doc = (await res.json()) as { image: string };
    expect(doc.image).toBe(`${server.url}images/punk-1.svg`);
    const img = await fetch(doc.image);
    expect(img.headers.get('content-type')).toBe('image/svg+xml');
    expect(await img.text()).toMatch(/^<svg/);
  });

  it('supports HEAD, rejects other methods, ignores query strings', async () => {
    const head = await fetch(`${server.url}punks/1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${server.url}punks/1`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${server.url}punks/2?x=1`)).status).toBe(200);
    expect((await fetch(`${server.url}nope`)).status).toBe(404);
  });

  it('stops idempotently', async () => {
    const other = await startMetadataServer();
    await Promise.all([other.stop(), other.stop()]);
    await expect(fetch(`${other.url}punks/1`)).rejects.toThrow();
  });
});
