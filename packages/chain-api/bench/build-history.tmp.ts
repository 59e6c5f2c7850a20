import { openHistory } from './realistic-history.js';
async function main() {
  for (const events of process.argv.slice(2).map(Number)) {
    const h = await openHistory({ events, cacheDir: '/work/bench-cache' });
    await h.anvil.stop();
  }
}
void main();
