/**
 * A warning wallets mode adds to an API answer; the API sends it as one of its `warnings` (it
 * fits the API's warning shape), so wallets never depends on the API.
 */
export interface WalletWarning {
  code: string;
  message: string;
  chain_ids: number[];
}
