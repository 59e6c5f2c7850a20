import { apiGet } from '../api-client.js';
import { formatAmount, formatUsd } from '../format.js';
import type { Balance } from '../types.js';
import { useApi } from '../use-api.js';
import { useSignedImages } from './signed-images.js';
import { TokenLogo } from './token-logo.js';

const keyOf = (b: Balance) => `${b.chain_id}:${b.address}`;

/**
 * Balances with logos and USD values. Spam is what `exclude_spam_tokens` leaves out: both lists
 * are read and the difference is marked.
 */
export function BalancesTable({ address, chainIds }: { address: string; chainIds: string }) {
  const base = `/v1/evm/balances/${address}?chain_ids=${chainIds}&metadata=logo,url&limit=100`;
  const balances = useApi(async () => {
    const [all, clean] = await Promise.all([
      apiGet<{ balances: Balance[] }>(base),
      apiGet<{ balances: Balance[] }>(`${base}&exclude_spam_tokens`),
    ]);
    const kept = new Set(clean.balances.map(keyOf));
    return all.balances.map((b) => ({ ...b, spam: !kept.has(keyOf(b)) }));
  }, [address, chainIds]);
  const rows = balances.data ?? [];
  const images = useSignedImages(
    rows.flatMap((b) => (b.token_metadata?.logo ? [b.token_metadata.logo] : [])),
  );
  return (
    <section class="card" aria-labelledby="balances-title">
      <h2 id="balances-title">Balances</h2>
      {balances.error && <p class="error">{balances.error}</p>}
      {balances.data && rows.length === 0 && <p class="muted">No balances.</p>}
      {rows.length > 0 && (
        <div class="scroll">
          <table class="balances">
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Value
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => {
                const logo = b.token_metadata?.logo;
                return (
                  <tr key={keyOf(b)} class={b.spam ? 'spam' : undefined}>
                    <td>
                      <span class="token">
                        <TokenLogo src={logo ? images.get(logo) : null} symbol={b.symbol ?? '?'} />
                        <span>
                          <strong>{b.symbol ?? '?'}</strong>{' '}
                          <span class="muted">{b.name ?? ''}</span>
                          {b.spam && <span class="tag spam-tag">spam</span>}
                          {b.low_liquidity && <span class="tag">low liquidity</span>}
                        </span>
                      </span>
                    </td>
                    <td class="num">{formatAmount(b.amount, b.decimals)}</td>
                    <td class="num">{formatUsd(b.value_usd)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
