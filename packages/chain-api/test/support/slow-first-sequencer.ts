import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Whether `path` is the file `pattern` names, or lies in the folder it names (ending in '/'). */
function matches(pattern: string, path: string): boolean {
  return pattern.endsWith('/') ? path.startsWith(pattern) : path === pattern;
}

/**
 * Runs the files known to be slow first, in the order given, then the rest in vitest's own
 * order. Vitest orders by the durations of the previous run, which a fresh CI clone does not
 * have (it falls back to file size): a slow file started last keeps one worker busy alone while
 * the others sit idle, so the run lasts as long as its tail.
 */
export function slowFirstSequencer(root: string, slow: readonly string[]): typeof BaseSequencer {
  const rank = (spec: TestSpecification): number => {
    const path = relative(root, spec.moduleId).split('\\').join('/');
    const i = slow.findIndex((pattern) => matches(pattern, path));
    return i === -1 ? slow.length : i;
  };
  return class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const base = await super.sort(files);
      const order = new Map(base.map((spec, i) => [spec, i]));
      return base.sort((a, b) => rank(a) - rank(b) || order.get(a)! - order.get(b)!);
    }
  };
}
