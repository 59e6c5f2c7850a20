import type { Migration } from '@sluice/db';
import { apiMigrations } from './api/api-migrations.js';
import { simSurfaceMigrations } from './api/sim-migrations.js';
import { usageMigrations } from './api/usage-migrations.js';
import { chainMigrations } from './chain-migrations.js';
import { changeMigrations } from './changes/change-migrations.js';
import { nftMigrations } from './nft/nft-migrations.js';
import { pricingMigrations } from './pricing/pricing-migrations.js';
import { deliveryMigrations } from './subscriptions/delivery-migrations.js';
import { subscriptionMigrations } from './subscriptions/subscription-migrations.js';
import { tokenTotalsMigrations } from './token-totals.js';
import { walletOwnerMigrations } from './wallets/wallet-owner-migrations.js';
import { walletsMigrations } from './wallets/wallets-migrations.js';

/**
 * Every migration of the package, in the order they build on each other (ids and order are
 * what existing stores recorded as applied, so they never change):
 * indexer tables -> pricing -> NFT -> API (keys, settings) -> scoped change notifications.
 */
export const storeMigrations: readonly Migration[] = [
  ...chainMigrations,
  ...pricingMigrations,
  ...nftMigrations,
  ...apiMigrations,
  ...simSurfaceMigrations,
  ...walletsMigrations,
  // Last: replaces the change triggers the lists above create.
  ...changeMigrations,
  // Webhook subscriptions, after the keys they belong to.
  ...subscriptionMigrations,
  // The webhook outbox, after the webhooks it delivers for.
  ...deliveryMigrations,
  // Compute-unit quotas and usage, on the keys table.
  ...usageMigrations,
  // Per-key owners of tracked wallets and the backfill queue's priority.
  ...walletOwnerMigrations,
  // Token supply and NFT holder totals kept by triggers; activity by wallet and token.
  ...tokenTotalsMigrations,
];
