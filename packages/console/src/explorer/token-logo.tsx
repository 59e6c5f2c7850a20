/** A small image through the proxy, or the symbol's first letters when there is none. */
export function TokenLogo({ src, symbol }: { src: string | null | undefined; symbol: string }) {
  if (src) return <img class="logo" src={src} alt="" width={28} height={28} loading="lazy" />;
  return (
    <span class="logo placeholder" aria-hidden="true">
      {symbol.slice(0, 2)}
    </span>
  );
}
