import { BaseError } from '../errors/index.js';

/**
 * What the indexer loop does after a failed step, read from the error's catalogue `code` and
 * `retryable` flag rather than its class:
 * - `halt`: the node serves another history than the store (retrying cannot help);
 * - `standby`: this process lost the leader lock, another one writes now;
 * - `retry`: anything else, after a backoff. A non-retryable error is retried too (the node or
 *   database may be fixed while the process runs), but it is logged as an error, not a warning.
 */
export type StepFailure =
  | { action: 'halt'; error: BaseError }
  | { action: 'standby' }
  | { action: 'retry'; retryable: boolean; code: string | undefined };

export function classifyStepFailure(error: unknown): StepFailure {
  if (!(error instanceof BaseError)) return { action: 'retry', retryable: true, code: undefined };
  if (error.code === 'CHAIN_REPLACED') return { action: 'halt', error };
  if (error.code === 'LEADERSHIP_LOST') return { action: 'standby' };
  return { action: 'retry', retryable: error.retryable, code: error.code };
}
