import { BaseError } from '../errors/index.js';

/** Why one delivery attempt failed. */
export type DeliveryErrorCode =
  | 'WEBHOOK_BAD_URL'
  | 'WEBHOOK_BLOCKED_ADDRESS'
  | 'WEBHOOK_TIMEOUT'
  | 'WEBHOOK_HTTP_STATUS'
  | 'WEBHOOK_NETWORK';

/**
 * A failed delivery attempt: the code, a short message and details for the delivery log (the
 * receiver's host and what went wrong; never the secret or the signature).
 */
export class DeliveryError extends BaseError<DeliveryErrorCode> {
  override name = 'DeliveryError';
  /** The receiver's HTTP status, when it answered. */
  readonly status: number | null;

  constructor(code: DeliveryErrorCode, message: string, status: number | null = null) {
    super(message, { code });
    this.status = status;
  }
}
