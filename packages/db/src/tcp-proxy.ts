import { createServer, type Server, Socket } from 'node:net';

/** A TCP forwarder that tests can freeze (a hung dependency) or cut (a dropped one). */
export interface TcpProxy {
  /** Port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Stops forwarding bytes both ways (and holds new connections unanswered) until `resume()`. */
  freeze(): void;
  resume(): void;
  /** Destroys every open connection (the peer sees a reset). */
  cut(): void;
  close(): Promise<void>;
}

/**
 * Forwards 127.0.0.1:<port> to `targetHost:targetPort`. `freeze()` holds every byte back, which
 * is how a frozen server looks to its clients: connections stay open and nothing answers.
 *
 * @example
 * const proxy = await startTcpProxy(5432);
 * const db = await openDatabase({ url: `postgres://postgres@127.0.0.1:${proxy.port}/test` });
 * proxy.freeze(); // queries now time out
 */
export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  let held: [Socket, Buffer][] = [];
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    // Bytes read while frozen are held back (not paused sockets: a pipe resumes on drain).
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (frozen) held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    upstream.connect(targetPort, targetHost);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cut = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    held = [];
  };
  return {
    port,
    freeze() {
      frozen = true;
    },
    resume() {
      frozen = false;
      const pending = held;
      held = [];
      for (const [to, chunk] of pending) if (!to.destroyed) to.write(chunk);
    },
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
