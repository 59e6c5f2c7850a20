/** Most items in one delivery. */
export const MAX_DELIVERY_ITEMS = 100;
/** Largest JSON body of one delivery, in bytes (a single larger item still goes alone). */
export const MAX_DELIVERY_BYTES = 256 * 1024;

/**
 * Splits one block's items into deliveries of at most {@link MAX_DELIVERY_ITEMS} items and about
 * {@link MAX_DELIVERY_BYTES} bytes, keeping their order.
 *
 * @example
 * splitDelivery(items).length; // 1 for a block of 3 small items
 */
export function splitDelivery(
  items: readonly Record<string, unknown>[],
  maxItems = MAX_DELIVERY_ITEMS,
  maxBytes = MAX_DELIVERY_BYTES,
): Record<string, unknown>[][] {
  const out: Record<string, unknown>[][] = [];
  let current: Record<string, unknown>[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && (current.length >= maxItems || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
