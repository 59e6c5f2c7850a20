export { findCommonAncestor, ReorgTooDeepError } from './find-common-ancestor.js';
export { handleReorg } from './handle-reorg.js';
export { type ReorgRepair, repairReorg } from './repair-reorg.js';
export { rollbackBootstrap } from './rollback-bootstrap.js';
export { rollbackPricing } from './rollback-pricing.js';
export { rollbackTo } from './rollback-to.js';
