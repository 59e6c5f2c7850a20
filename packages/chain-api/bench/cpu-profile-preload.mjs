// CPU profile of a server the bench runs (`--cpu-prof` is not allowed in NODE_OPTIONS):
// BENCH_SERVER_NODE_OPTIONS=--import=<abs path>/bench/cpu-profile-preload.mjs. SIGUSR2 starts the
// profiler, the next SIGUSR2 (or SIGTERM) writes CPU_PROFILE_DIR/server-<pid>-<n>.cpuprofile, so
// a bench can profile its measured window only (live-bench.ts does with LIVE_PROFILE=1). Samples
// under this file's own frames (inspector `post`) are the profiler itself: leave them out.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR ?? '.';
const session = new Session();
session.connect();
let running = false;
let count = 0;

function stop() {
  if (!running) return;
  running = false;
  // Same-thread session: the callback runs before post() returns, so this works on exit too.
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    writeFileSync(
      join(dir, `server-${process.pid}-${count++}.cpuprofile`),
      JSON.stringify(result.profile),
    );
  });
}

process.on('SIGUSR2', () => {
  if (running) {
    stop();
    return;
  }
  running = true;
  session.post('Profiler.enable', () => {
    session.post('Profiler.setSamplingInterval', { interval: 200 }, () => {
      session.post('Profiler.start');
    });
  });
});
process.on('SIGTERM', stop);
