export { AdaptiveLimiter } from './adaptive-limiter.js';
export { backoffDelay, sleep } from './backoff.js';
export {
  createRpcClient,
  type ResultValidator,
  type RpcCall,
  type RpcClient,
  type RpcClientOptions,
  type RpcHealth,
} from './create-rpc-client.js';
export {
  createNodeClientRegistry,
  type NodeChain,
  type NodeClientRegistry,
  type NodePurpose,
} from './node-client-registry.js';
export { createNodeTransport, type NodeTransport } from './node-transport.js';
export {
  CapabilityUnknownError,
  type ChainCapabilities,
  MULTICALL3_ADDRESS,
  probeCapabilities,
} from './probe-capabilities.js';
export {
  isMethodNotFound,
  isRangeTooLarge,
  RpcError,
  RpcHttpError,
  RpcMalformedResponseError,
  RpcResponseError,
  RpcTimeoutError,
  RpcTooLargeError,
  RpcTransportError,
  redactUrl,
} from './rpc-errors.js';
