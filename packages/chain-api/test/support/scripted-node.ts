import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call as received. */
export interface ReceivedCall {
  method: string;
  params: unknown[];
}

/** What the node answers to one call: a result, a JSON-RPC error, or nothing (hold it open). */
export type ScriptedAnswer =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | 'hang';

export interface ScriptedNode {
  url: string;
  /** Every call received, in order. */
  calls: ReceivedCall[];
  /** HTTP requests being held open right now (hanging answers the client has not given up on). */
  held(): number;
  close(): Promise<void>;
}

/**
 * A JSON-RPC endpoint over real HTTP whose answers a test scripts per call: a node that is
 * slow (holds requests), has no state at old blocks (errors) or runs contracts that revert.
 * It records what the API sent (methods, params such as an `eth_call`'s gas).
 *
 * @example
 * const node = await startScriptedNode(() => 'hang');
 */
export async function startScriptedNode(
  answer: (call: ReceivedCall) => ScriptedAnswer,
): Promise<ScriptedNode> {
  const calls: ReceivedCall[] = [];
  let held = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const batch = (Array.isArray(parsed) ? parsed : [parsed]) as {
        id: number;
        method: string;
        params?: unknown[];
      }[];
      const answers = batch.map((b) => {
        const call = { method: b.method, params: b.params ?? [] };
        calls.push(call);
        return { id: b.id, answer: answer(call) };
      });
      if (answers.some((a) => a.answer === 'hang')) {
        held++;
        res.on('close', () => held--);
        return;
      }
      const body = answers.map(({ id, answer: a }) => ({ jsonrpc: '2.0', id, ...(a as object) }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(parsed) ? body : body[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    held: () => held,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
