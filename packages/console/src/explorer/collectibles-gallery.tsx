import { useState } from 'preact/hooks';
import { apiGet } from '../api-client.js';
import type { Collectible } from '../types.js';
import { useApi } from '../use-api.js';
import { useSignedImages } from './signed-images.js';

/** NFTs with images through the proxy; spam collections only when asked for. */
export function CollectiblesGallery({ address, chainIds }: { address: string; chainIds: string }) {
  const [showSpam, setShowSpam] = useState(false);
  const items = useApi(
    () =>
      apiGet<{ entries: Collectible[] }>(
        `/v1/evm/collectibles/${address}?chain_ids=${chainIds}&limit=100&filter_spam=false`,
      ),
    [address, chainIds],
  );
  const all = items.data?.entries ?? [];
  const spamCount = all.filter((c) => c.is_spam).length;
  const shown = showSpam ? all : all.filter((c) => !c.is_spam);
  const images = useSignedImages(shown.flatMap((c) => (c.image_url ? [c.image_url] : [])));
  return (
    <section class="card" aria-labelledby="nft-title">
      <div class="card-head">
        <h2 id="nft-title">Collectibles</h2>
        <label class="toggle">
          <input
            type="checkbox"
            checked={showSpam}
            onChange={(e) => setShowSpam((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Show spam ({spamCount})
        </label>
      </div>
      {items.error && <p class="error">{items.error}</p>}
      {items.data && shown.length === 0 && <p class="muted">No collectibles.</p>}
      <ul class="gallery">
        {shown.map((c) => {
          const src = c.image_url ? images.get(c.image_url) : null;
          const title = c.name ?? `${c.symbol ?? 'Token'} #${c.token_id}`;
          return (
            <li
              key={`${c.chain_id}:${c.contract_address}:${c.token_id}`}
              class={c.is_spam ? 'spam' : undefined}
            >
              {src ? (
                <img src={src} alt={title} width={160} height={160} loading="lazy" />
              ) : (
                <span class="no-image" aria-hidden="true">
                  no image
                </span>
              )}
              <span class="caption">
                {title}
                {c.balance !== '1' && <span class="muted"> ×{c.balance}</span>}
                {c.is_spam && <span class="tag spam-tag">spam</span>}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
