/** The subset of JSON-RPC shapes the indexer reads (hex quantities as the node sends them). */
export type Hex = `0x${string}`;

export interface RpcTx {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  input: Hex;
  transactionIndex: Hex;
  /** Envelope type (`0x4`: EIP-7702 set-code); absent on some legacy nodes. */
  type?: Hex;
  /** EIP-7702 authorizations of a type-4 transaction. */
  authorizationList?: RpcAuthorization[];
}

/** One signed EIP-7702 authorization: `address` is the code its signer delegates to. */
export interface RpcAuthorization {
  chainId: Hex;
  address: Hex;
  nonce: Hex;
  yParity?: Hex;
  /** Pre-standard spelling some nodes still send. */
  v?: Hex;
  r: Hex;
  s: Hex;
}

export interface RpcWithdrawal {
  address: Hex;
}

export interface RpcBlockWithTxs {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  miner: Hex;
  transactions: RpcTx[];
  withdrawals?: RpcWithdrawal[];
}

export interface RpcLogEntry {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionIndex: Hex;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  /** Absent before Byzantium (then `root`): treated as success. */
  status?: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex;
  contractAddress: Hex | null;
  logs: RpcLogEntry[];
}

/** A frame of geth's `callTracer` output. */
export interface CallFrame {
  type: string;
  from: Hex;
  to?: Hex;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

/** One block with everything the indexer derives from it. */
export interface FetchedBlock {
  block: RpcBlockWithTxs;
  receipts: RpcReceipt[];
  /** Per-transaction call traces, or undefined when the node can't trace. */
  traces: CallFrame[] | undefined;
}
