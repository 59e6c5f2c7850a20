// One library per worker thread: each gets its own V8 isolate and JIT state, as in a real app,
// so neither library's call sites are made polymorphic by the other's code.
import { createHmac } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { opsPerSecond } from './ops-per-second.js';
import { issuesOpenedPayload, payloadOfSize } from './payloads.js';

interface Instance {
  verify(payload: string, signature: string): Promise<boolean>;
  on(name: string, handler: () => void): void;
  onAny(handler: () => void): void;
  receive(event: { id: string; name: string; payload: object }): Promise<void>;
}

const { library, secret } = workerData as { library: 'sluice' | 'octokit'; secret: string };
const mod =
  library === 'sluice'
    ? await import(new URL('../dist/index.js', import.meta.url).href)
    : await import('@octokit/webhooks');
const webhooks = new mod.Webhooks({ secret }) as unknown as Instance;

let calls = 0;
const handler = (): void => {
  calls++;
};
webhooks.on('issues.opened', handler);
webhooks.on('issues', handler);
webhooks.onAny(handler);
const event = { id: '1', name: 'issues', payload: issuesOpenedPayload() };

const payloads = new Map<number, { payload: string; signature: string }>();
function signed(size: number) {
  let entry = payloads.get(size);
  if (entry === undefined) {
    const payload = payloadOfSize(size);
    const signature = `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;
    entry = { payload, signature };
    payloads.set(size, entry);
  }
  return entry;
}

parentPort?.on(
  'message',
  async (task: { kind: 'verify' | 'receive'; size?: number; ms: number }) => {
    let rate: number;
    if (task.kind === 'verify') {
      const { payload, signature } = signed(task.size ?? 1024);
      if (!(await webhooks.verify(payload, signature)))
        throw new Error('verify sanity check failed');
      rate = await opsPerSecond(() => webhooks.verify(payload, signature), task.ms);
    } else {
      rate = await opsPerSecond(() => webhooks.receive(event), task.ms);
      if (calls === 0) throw new Error('handlers never ran');
    }
    parentPort?.postMessage(rate);
  },
);
