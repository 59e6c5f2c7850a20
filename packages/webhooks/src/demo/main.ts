// `npm start -w @sluice/webhooks`: a demo receiver that prints its URL, secret and a signed curl.
import { startDemoReceiver } from './start-demo-receiver.js';

const port = Number(process.env.PORT ?? 3200);
const host = process.env.HOST ?? '127.0.0.1';

try {
  const demo = await startDemoReceiver({
    port,
    host,
    secret: process.env.SLUICE_DEMO_WEBHOOK_SECRET || undefined,
  });
  console.log(`@sluice/webhooks demo receiver listening on ${demo.url}`);
  console.log(`what it is and how to try it: ${new URL('/', demo.url)} (open in a browser)`);
  console.log(`demo secret (generated now, for this demo only): ${demo.secret}`);
  console.log('send a signed ping:');
  console.log(demo.curl);
  const stop = (): void => {
    demo.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`demo receiver could not listen on ${host}:${port}: ${reason} (set PORT)`);
  process.exitCode = 1;
}
