export {
  createSelectorRegistry,
  type DecodedCall,
  decodeCall,
  type SelectorRegistry,
  standardRegistry,
} from './decode-call.js';
export { decodeLog } from './decode-log.js';
export { decodeUnindexedTransfer } from './decode-unindexed-transfer.js';
export type { Addr, DecodedEvent, DecodedEventKind, RawLog } from './decoded-event.js';
export { ALL_TOPICS, indexedEventsAbi, TOPIC } from './event-signatures.js';
export { standardSignatures } from './function-signatures.js';
