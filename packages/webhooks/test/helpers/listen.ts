import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on an ephemeral loopback port; returns the port and a close function. */
export async function listen(
  server: Server,
): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
