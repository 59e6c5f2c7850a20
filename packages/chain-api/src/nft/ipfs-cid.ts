// CIDv0: base58btc multihash, always 46 characters starting with Qm.
const cidV0 = /^Qm[1-9A-HJ-NP-Za-km-z]{44}$/;
// CIDv1 in the multibases gateways accept in paths: base32 lower (b...), base36 (k...).
const cidV1 = /^(b[a-z2-7]{58,}|k[0-9a-z]{48,})$/;

/**
 * True when `value` looks like an IPFS content identifier (CIDv0 `Qm...` or CIDv1 `bafy...`/`k51...`).
 * Only the shape is checked: enough to tell a bare CID from a relative path or a name.
 *
 * @example
 * isIpfsCid('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG'); // true
 */
export function isIpfsCid(value: string): boolean {
  return cidV0.test(value) || cidV1.test(value);
}
