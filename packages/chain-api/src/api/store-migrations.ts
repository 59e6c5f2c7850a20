import type { Migration } from '@sluice/db';
import { chainMigrations } from '../db/migrations.js';
import { nftMigrations } from '../nft/migrations.js';
import { pricingMigrations } from '../pricing/migrations.js';
import { apiMigrations } from './api-migrations.js';

/**
 * Every migration list of the package, in the order they build on each other:
 * indexer tables -> pricing -> NFT -> API (keys, settings).
 */
export const storeMigrations: readonly Migration[] = [
  ...chainMigrations,
  ...pricingMigrations,
  ...nftMigrations,
  ...apiMigrations,
];
