import type { DecodedEvent } from '../decode/index.js';
import { erc721Transfer, erc1155Transfer, metadataUpdate } from './nft-events.js';
import { poolEvent, poolSwap } from './pool-events.js';
import { approval, erc20Transfer, wrappedNativeMove } from './token-events.js';
import type { TxScope } from './tx-scope.js';

/** Hands one decoded log of the transaction to the step that derives its kind of row. */
export function applyEvent(s: TxScope, ev: DecodedEvent, logIndex: number): void {
  switch (ev.kind) {
    case 'erc20_transfer':
      erc20Transfer(s, ev, logIndex);
      break;
    case 'erc721_transfer':
      erc721Transfer(s, ev, logIndex);
      break;
    case 'erc1155_transfer':
      erc1155Transfer(s, ev, logIndex);
      break;
    case 'erc20_approval':
    case 'erc721_approval':
    case 'approval_for_all':
      approval(s, ev, logIndex);
      break;
    case 'weth_deposit':
    case 'weth_withdrawal':
      wrappedNativeMove(s, ev, logIndex);
      break;
    case 'v2_pair_created':
    case 'v3_pool_created':
    case 'v2_sync':
    case 'v3_initialize':
    case 'v3_liquidity':
      poolEvent(s, ev);
      break;
    case 'v2_swap':
    case 'v3_swap':
      poolSwap(s, ev, logIndex);
      break;
    case 'metadata_update':
      metadataUpdate(s, ev);
      break;
  }
}
