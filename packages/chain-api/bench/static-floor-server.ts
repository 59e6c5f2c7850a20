// The floor of the API benchmark: a bare node:http server answering every request with one
// pre-built body of the given size, in its own process like the API server. No framework, no
// auth, no store: what loopback HTTP plus autocannon on this machine allow at all.
// Usage: tsx bench/static-floor-server.ts <bytes>; prints the port on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const size = Number(process.argv[2]);
if (!Number.isInteger(size) || size < 2) throw new Error('usage: static-floor-server.ts <bytes>');
const body = Buffer.from(`"${'x'.repeat(size - 2)}"`);
const server = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  console.log((server.address() as AddressInfo).port);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
