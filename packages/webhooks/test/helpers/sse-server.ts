import { createServer, type ServerResponse } from 'node:http';
import { listen } from './listen.js';

/** A local Server-Sent Events relay channel for tests. */
export async function startSseServer() {
  const open = new Set<ServerResponse>();
  let connections = 0;
  let refuseNext = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    connections++;
    if (refuseNext > 0) {
      refuseNext--;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('try later');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // Short retry so EventSource's own reconnects are quick in tests; a smee-like ready event.
    res.write('retry: 50\n\nevent: ready\ndata: {}\n\n');
    open.add(res);
    req.on('close', () => open.delete(res));
    for (const waiter of waiters.splice(0)) {
      if (open.size >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  const { port, close } = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/channel/secret-channel-id`,
    get connections() {
      return connections;
    },
    get open() {
      return open.size;
    },
    /** Sends one `message` event (or a named event) to every open stream. */
    send(data: string, event?: string) {
      for (const res of open) res.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
    },
    /** Cuts every open stream (network drop). */
    drop() {
      for (const res of open) res.socket?.destroy();
      open.clear();
    },
    refuse(count: number) {
      refuseNext = count;
    },
    waitForOpen(count = 1) {
      if (open.size >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    close,
  };
}
