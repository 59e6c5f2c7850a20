export { findCommonAncestor, ReorgTooDeepError } from './find-common-ancestor.js';
export { handleReorg } from './handle-reorg.js';
