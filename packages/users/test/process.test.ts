import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CliProcess, runCliToExit, startCli } from './helpers.js';

// The real CLI as a child process: restart durability, HTTPS, start-up errors, SIGTERM.
// Child processes start slowly on a busy 2-core machine (PGlite initialises in WebAssembly).
vi.setConfig({ testTimeout: 180_000 });

const tmp = mkdtempSync(join(tmpdir(), 'sluice-users-process-'));
let pg: TestDatabase;
const running: CliProcess[] = [];

beforeAll(async () => {
  pg = await createTestDatabase('postgres');
});

afterAll(async () => {
  for (const cli of running) await cli.stop();
  await pg?.drop();
  rmSync(tmp, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<CliProcess> {
  const cli = await startCli(env);
  running.push(cli);
  return cli;
}

describe.each(['pglite', 'postgres'] as const)('restart durability on %s', (kind) => {
  it('keeps records written before SIGTERM after a restart', async () => {
    const env: Record<string, string> =
      kind === 'postgres'
        ? { DATABASE_URL: pg.url ?? '' }
        : { DATA_DIR: mkdtempSync(join(tmp, 'pglite-')) };
    let cli = await start(env);
    const created = await fetch(`${cli.url}/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 7, name: 'Durable', pro: 'persistent' }),
    });
    expect(created.status).toBe(201);
    const record = await created.json();
    const edited = await fetch(`${cli.url}/7`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Durable', pro: 'edited' }),
    });
    expect(edited.status).toBe(200);
    expect(await cli.stop()).toBe(0);

    cli = await start(env);
    const res = await fetch(`${cli.url}/7`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...(record as object), pro: 'edited' });
    expect(await (await fetch(`${cli.url}/health`)).json()).toEqual({
      status: 'ok',
      database: kind,
    });
    expect(await cli.stop()).toBe(0);
  });
});

describe('HTTPS', () => {
  const key = join(tmp, 'key.pem');
  const cert = join(tmp, 'cert.pem');
  let certPem = '';

  beforeAll(() => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    certPem = execFileSync('cat', [cert], { encoding: 'utf8' });
  });

  function httpsFetch(
    url: string,
    options: { method?: string; body?: string } = {},
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: options.method ?? 'GET',
          ca: certPem, // verify against the test's own CA instead of disabling verification
          headers: options.body ? { 'content-type': 'application/json' } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  }

  it('serves HTTPS with a self-signed certificate and redirects plain HTTP', async () => {
    const cli = await start({
      DATABASE_URL: pg.url ?? '',
      TLS_KEY_FILE: key,
      TLS_CERT_FILE: cert,
      HTTP_REDIRECT_PORT: '0',
    });
    expect(cli.url).toMatch(/^https:\/\//);
    expect(cli.output()).toContain('curl -k');
    const httpsUrl = cli.url.replace('127.0.0.1', 'localhost');
    expect(await httpsFetch(`${httpsUrl}/health`)).toEqual({
      status: 200,
      body: '{"status":"ok","database":"postgres"}',
    });
    const created = await httpsFetch(`${httpsUrl}/add`, {
      method: 'POST',
      body: JSON.stringify({ id: 77, name: 'Secure', pro: 'tls' }),
    });
    expect(created.status).toBe(201);
    // Plain HTTP on the HTTPS port is not served.
    await expect(fetch(`${cli.url.replace('https', 'http')}/health`)).rejects.toThrow();
    // The redirect port answers 308 to the same path on HTTPS.
    const redirect = await new Promise<{ status: number; location: string | undefined }>(
      (resolve, reject) => {
        const req = httpRequest(`${cli.redirectUrl}/users?limit=5`, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        });
        req.on('error', reject);
        req.end();
      },
    );
    const httpsPort = new URL(cli.url).port;
    expect(redirect).toEqual({
      status: 308,
      location: `https://127.0.0.1:${httpsPort}/users?limit=5`,
    });
    expect(await cli.stop()).toBe(0);
  });

  it.each([
    [{ TLS_KEY_FILE: 'KEY' }, /TLS_KEY_FILE is set but TLS_CERT_FILE is not/],
    [{ TLS_CERT_FILE: 'CERT' }, /TLS_CERT_FILE is set but TLS_KEY_FILE is not/],
    [{ TLS_KEY_FILE: '/nonexistent/key.pem', TLS_CERT_FILE: 'CERT' }, /Cannot read TLS_KEY_FILE/],
    [{ TLS_KEY_FILE: 'CERT', TLS_CERT_FILE: 'CERT' }, /not a valid key and certificate/],
    [{ HTTP_REDIRECT_PORT: '8080' }, /HTTP_REDIRECT_PORT needs HTTPS/],
    [{ PORT: '70000' }, /PORT must be an integer from 0 to 65535/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
  ])('refuses to start with %o', async (vars, message) => {
    const env: Record<string, string> = { DATABASE_URL: pg.url ?? '' };
    for (const [name, value] of Object.entries(vars)) {
      env[name] = value === 'KEY' ? key : value === 'CERT' ? cert : value;
    }
    const result = await runCliToExit(env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain('listening');
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request after SIGTERM, refuses new connections, exits 0', async () => {
    const cli = await start({ DATABASE_URL: pg.url ?? '', LOG_LEVEL: 'info' });
    const { port } = new URL(cli.url);
    const body = JSON.stringify({ id: 4242, name: 'In flight', pro: 'patient' });
    const half = Math.floor(body.length / 2);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/add',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      // The request is now in flight (headers and half the body sent): stop the server.
      setTimeout(() => {
        cli.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(half)), 500);
      }, 200);
    });
    const exit = new Promise<number | null>((resolve) => cli.child.once('exit', resolve));
    await new Promise((r) => setTimeout(r, 400));
    // After SIGTERM the listener is closed: a new connection is refused.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    const res = await response;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ id: 4242, name: 'In flight' });
    expect(await exit).toBe(0);
    expect(cli.output()).toContain('shut down cleanly');
    const { rows } = await pg.db.query<{ name: string }>('select name from users where id = 4242');
    expect(rows).toEqual([{ name: 'In flight' }]);
  });
});
