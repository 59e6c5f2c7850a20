import { BaseError } from './base-error.js';

/** An invariant the code guarantees does not hold: a bug, never bad input or a node's answer. */
export class InternalError extends BaseError<'INVARIANT_BROKEN'> {
  override name = 'InternalError';
  constructor(message: string) {
    super(message, { code: 'INVARIANT_BROKEN' });
  }
}
