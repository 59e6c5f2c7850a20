import type { PricePoint as StoredPricePoint } from '../store/pricing/price-writer.js';
import type { TokenPrice } from './route/select-route.js';

/** One token's price as of one block, as the pricing route computed it. */
export type PricePoint = StoredPricePoint<TokenPrice>;
