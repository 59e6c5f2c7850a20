import { BaseError } from '../errors/index.js';

/** Catalogue codes of devnet failures. */
type DevnetErrorCode =
  | 'DEVNET_FAILED'
  | 'ANVIL_NOT_FOUND'
  | 'ANVIL_START_FAILED'
  | 'CONTRACT_COMPILE_FAILED'
  | 'SCENARIO_FAILED'
  | 'UNKNOWN_DEVNET_WALLET';

/** Base class of every devnet error: a short message plus machine-readable details. */
export class DevnetError extends BaseError<DevnetErrorCode> {
  override name = 'DevnetError';

  constructor(code: DevnetErrorCode, message: string, details?: string) {
    super(message, { code, details, message: details ? `${message}\n${details}` : message });
  }
}

/** Neither the npm anvil package nor an `anvil` on PATH was found. */
export class AnvilNotFoundError extends DevnetError {
  override name = 'AnvilNotFoundError';
  constructor(details: string) {
    super(
      'ANVIL_NOT_FOUND',
      'anvil binary not found: install @foundry-rs/anvil-linux-amd64 (npm) or put `anvil` on PATH (or set ANVIL_PATH)',
      details,
    );
  }
}

/** anvil exited or never answered JSON-RPC while starting. */
export class AnvilStartError extends DevnetError {
  override name = 'AnvilStartError';
  constructor(message: string, details?: string) {
    super('ANVIL_START_FAILED', message, details);
  }
}

/** solc reported errors while compiling the devnet contracts. */
export class ContractCompileError extends DevnetError {
  override name = 'ContractCompileError';
  constructor(details: string) {
    super('CONTRACT_COMPILE_FAILED', 'solc failed to compile the devnet contracts', details);
  }
}

/** A scenario step failed (reverted transaction, unexpected state). */
export class ScenarioError extends DevnetError {
  override name = 'ScenarioError';
  constructor(message: string, details?: string) {
    super('SCENARIO_FAILED', message, details);
  }
}
