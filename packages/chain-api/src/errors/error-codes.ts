/**
 * The catalogue of every chain-api error code: one stable string per kind of failure, with
 * whether retrying the same work may succeed (an error may decide otherwise per instance, e.g.
 * an HTTP 429 from the node is retryable and a 400 is not). Codes are part of the interface:
 * logs, `nft_metadata.last_error` and API error bodies carry them, so they are never renamed.
 */
export const errorCodes = {
  // Configuration (environment, CHAINS_FILE)
  CONFIG_INVALID: {
    retryable: false,
    summary: 'An environment setting or chains file entry is unusable',
  },

  // Node (JSON-RPC)
  RPC_ABORTED: { retryable: false, summary: 'An RPC call was aborted (shutdown)' },
  RPC_TRANSPORT: {
    retryable: true,
    summary: 'The node did not answer, refused or dropped the connection',
  },
  RPC_HTTP: { retryable: true, summary: 'The node answered with an HTTP error status' },
  RPC_MALFORMED_RESPONSE: {
    retryable: true,
    summary: 'The node answered something that is not valid JSON-RPC',
  },
  RPC_RESPONSE: { retryable: false, summary: 'The node answered with a JSON-RPC error object' },
  RPC_TOO_LARGE: {
    retryable: false,
    summary: "One call's answer is larger than the client accepts (asking again cannot help)",
  },
  CAPABILITY_UNKNOWN: {
    retryable: true,
    summary: 'A probe could not tell whether the node has a feature',
  },
  TRACE_MALFORMED: { retryable: false, summary: 'A trace list does not form one call tree' },
  TRACE_UNAVAILABLE: {
    retryable: true,
    summary: 'The node could not trace a transaction by any method',
  },
  CHAIN_STATE_UNAVAILABLE: { retryable: true, summary: 'The node cannot serve state at a block' },
  BLOCK_NOT_FOUND: { retryable: true, summary: 'The node does not have a block it should have' },
  CHAIN_ID_MISMATCH: { retryable: false, summary: 'The node serves another chain than configured' },

  // Indexer
  RANGE_INCONSISTENT: {
    retryable: true,
    summary: 'Fetched blocks do not form one chain; fetch again',
  },
  CHAIN_REPLACED: { retryable: false, summary: 'The node serves another history than the store' },
  REORG_TOO_DEEP: { retryable: false, summary: 'A reorg reaches below every stored block' },
  LEADERSHIP_LOST: { retryable: true, summary: 'This process lost the chain leader lock' },
  LEADER_LOCK_HELD: { retryable: false, summary: 'Another indexer holds the chain leader lock' },
  CHECKPOINT_CONFLICT: { retryable: true, summary: 'Another writer moved the checkpoint' },
  CHECKPOINT_MOVED: { retryable: true, summary: 'The checkpoint moved between reads and commit' },
  RECEIPT_MISSING: { retryable: true, summary: 'A block was fetched without one of its receipts' },

  // Wallets mode
  BACKFILL_SUPERSEDED: {
    retryable: false,
    summary: "The wallet's tracking changed; this backfill is void",
  },
  POOL_READ_FAILED: { retryable: true, summary: 'The node could not run a pool state call' },

  // Pricing
  STALE_CURSOR: {
    retryable: true,
    summary: 'A reorg rolled the pricing cursor back during a step',
  },
  PRICE_NOT_LOADED: { retryable: false, summary: 'A price was read before it was loaded' },
  PRICES_UNSTABLE: { retryable: true, summary: 'Prices kept changing while they loaded' },

  // Change feed and read replicas
  CHANGE_FEED_DOWN: { retryable: true, summary: 'The change feed is not connected' },
  REPLICA_MISCONFIGURED: { retryable: false, summary: 'A read replica is not a usable standby' },

  // HTTP API (the body of `detail` endpoints shows these codes, so they keep the peer's names)
  INVALID_PARAMETER: { retryable: false, summary: 'Invalid request parameter' },
  INVALID_BODY: { retryable: false, summary: 'A request body that cannot be used (a field named)' },
  UNAUTHORIZED: { retryable: false, summary: 'Missing or unknown API key' },
  NOT_FOUND: { retryable: false, summary: 'No such resource' },
  RATE_LIMITED: { retryable: true, summary: 'Too many requests' },
  QUOTA_EXCEEDED: {
    retryable: false,
    summary: "The request would pass the key's compute-unit quota for its period",
  },
  INTERNAL: { retryable: false, summary: 'Internal server error' },
  NOT_READY: { retryable: true, summary: 'The service is not ready yet' },
  DATABASE_UNAVAILABLE: { retryable: true, summary: 'The database is reconnecting' },
  REQUEST_TIMEOUT: {
    retryable: true,
    summary: 'A request ran past its deadline (REQUEST_TIMEOUT_MS); its work was cancelled',
  },
  CLIENT_CLOSED: {
    retryable: true,
    summary: 'The client closed the connection before the answer; its work was cancelled',
  },

  // NFT metadata (stored in nft_metadata.last_error as `code: message`)
  BAD_URI: { retryable: false, summary: 'A metadata URI is malformed' },
  UNSUPPORTED_URI: { retryable: false, summary: 'A metadata URI scheme is not supported' },
  BLOCKED_ADDRESS: { retryable: false, summary: 'A metadata URL points at a private address' },
  TOO_MANY_REDIRECTS: { retryable: false, summary: 'A metadata URL redirects too often' },
  TOO_LARGE: { retryable: false, summary: 'A metadata document is too large' },
  TIMEOUT: { retryable: true, summary: 'A metadata fetch timed out' },
  HTTP_STATUS: { retryable: true, summary: 'A metadata server answered with an error status' },
  BAD_CONTENT_TYPE: {
    retryable: false,
    summary: 'A metadata document has an unusable content type',
  },
  NETWORK: { retryable: true, summary: 'A metadata fetch failed on the network' },
  INVALID_JSON: { retryable: false, summary: 'A metadata document is not JSON' },
  INVALID_METADATA: { retryable: false, summary: 'A metadata document is not usable metadata' },
  URI_CALL_FAILED: { retryable: false, summary: 'tokenURI/uri reverted' },
  RPC_UNAVAILABLE: { retryable: true, summary: 'The node could not be asked for a token URI' },

  // Webhook deliveries (stored in webhook_deliveries.last_error as `code: message`)
  WEBHOOK_BAD_URL: { retryable: false, summary: 'A webhook URL is not an http(s) URL' },
  WEBHOOK_BLOCKED_ADDRESS: {
    retryable: true,
    summary: 'A webhook host resolved to a private address at connect time',
  },
  WEBHOOK_TIMEOUT: { retryable: true, summary: 'A webhook receiver did not answer in time' },
  WEBHOOK_HTTP_STATUS: { retryable: true, summary: 'A webhook receiver answered a non-2xx status' },
  WEBHOOK_NETWORK: { retryable: true, summary: 'A webhook receiver could not be reached' },

  // Devnet
  DEVNET_FAILED: { retryable: false, summary: 'The devnet failed' },
  ANVIL_NOT_FOUND: { retryable: false, summary: 'No anvil binary was found' },
  ANVIL_START_FAILED: { retryable: false, summary: 'anvil did not start' },
  CONTRACT_COMPILE_FAILED: {
    retryable: false,
    summary: 'solc failed to compile the devnet contracts',
  },
  SCENARIO_FAILED: { retryable: false, summary: 'A devnet scenario step failed' },
  UNKNOWN_DEVNET_WALLET: { retryable: false, summary: 'No devnet wallet has that name' },

  // Broken invariants: a bug, never a condition of the node, store or input
  INVARIANT_BROKEN: { retryable: false, summary: 'An internal invariant does not hold' },
} as const satisfies Record<string, { retryable: boolean; summary: string }>;

/** A code of the catalogue. */
export type ErrorCode = keyof typeof errorCodes;
