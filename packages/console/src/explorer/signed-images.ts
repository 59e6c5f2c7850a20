import { useEffect, useState } from 'preact/hooks';
import { apiPost } from '../api-client.js';

/** Proxied URLs the server signed so far, by original URL (null: the server will not proxy it). */
const signed = new Map<string, string | null>();

/**
 * Images are shown through the server's image proxy only: `POST /v1/console/image-urls` signs
 * the URLs (logos, NFT images) so the page never contacts a third-party host itself.
 */
export function useSignedImages(urls: readonly string[]): ReadonlyMap<string, string | null> {
  const [, setVersion] = useState(0);
  const key = urls.join('\n');
  useEffect(() => {
    const missing = [...new Set(urls)].filter((u) => !signed.has(u));
    if (missing.length === 0) return;
    let live = true;
    apiPost<{ urls: Record<string, string | null> }>('/v1/console/image-urls', { urls: missing })
      .then((answer) => {
        for (const url of missing) signed.set(url, answer.urls[url] ?? null);
        if (live) setVersion((v) => v + 1);
      })
      .catch(() => {
        for (const url of missing) signed.set(url, null);
        if (live) setVersion((v) => v + 1);
      });
    return () => {
      live = false;
    };
  }, [key]);
  return signed;
}
