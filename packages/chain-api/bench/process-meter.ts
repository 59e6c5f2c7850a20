/**
 * Measures a child process tree from /proc (Linux): peak resident memory (the largest VmHWM of
 * the process and its descendants, sampled while they run) and CPU seconds used.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

function children(pid: number): number[] {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    return tasks.flatMap((t) => {
      try {
        return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...children(out[i] as number));
  return out;
}

function hwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14-15 (11-12 after the command name); each process of the
    // tree is sampled itself, so the children's fields would count them twice.
    const sum = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    return sum / TICKS;
  } catch {
    return 0;
  }
}

export interface ProcessMeter {
  /** Samples now (call often: a process's peak is lost once it exits). */
  sample(): void;
  /** Largest resident set of any one process of the tree, bytes. */
  peakRssBytes(): number;
  /** CPU seconds of the tree's processes, as last sampled. */
  cpuSeconds(): number;
}

/** A meter of `pid` and its descendants. */
export function processMeter(pid: number): ProcessMeter {
  let peak = 0;
  const cpu = new Map<number, number>();
  return {
    sample() {
      for (const p of tree(pid)) {
        peak = Math.max(peak, hwmKb(p));
        const c = cpuSeconds(p);
        if (c > 0) cpu.set(p, c);
      }
    },
    peakRssBytes: () => peak * 1024,
    cpuSeconds: () => [...cpu.values()].reduce((a, b) => a + b, 0),
  };
}

/**
 * CPU seconds of every local PostgreSQL process (command line `postgres...`): server, backends
 * and its workers, as `/proc` shows them now (0 when PostgreSQL runs elsewhere). Difference two
 * readings for a window; a backend that exits in between takes its share with it.
 */
export function postgresCpuSeconds(): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith('postgres')) continue;
    } catch {
      continue;
    }
    sum += cpuSeconds(Number(entry));
  }
  return sum;
}
