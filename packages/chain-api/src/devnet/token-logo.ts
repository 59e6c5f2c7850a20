import { createHash } from 'node:crypto';

/**
 * A token logo for the devnet: a coloured disc (hue from the symbol's hash) with the symbol,
 * so every devnet token is told apart at a glance. `symbol` must match `/^[A-Za-z0-9]{1,8}$/`
 * (the metadata server's route only passes such names), so it needs no escaping.
 *
 * @example
 * tokenLogoSvg('USDC'); // '<svg xmlns=... <text ...>USDC</text></svg>'
 */
export function tokenLogoSvg(symbol: string): string {
  const hue = createHash('sha256').update(symbol.toUpperCase()).digest()[0]! * (360 / 256);
  const text = symbol.toUpperCase().slice(0, 5);
  const size = text.length <= 3 ? 22 : text.length === 4 ? 17 : 14;
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">' +
    `<circle cx="32" cy="32" r="32" fill="hsl(${hue.toFixed(0)} 60% 42%)"/>` +
    `<text x="32" y="32" dy="0.35em" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="700" font-size="${size}" fill="#fff">${text}</text>` +
    '</svg>'
  );
}

/** Path of a logo on the devnet metadata server, relative to its base URL. */
export function tokenLogoPath(symbol: string): string {
  return `logos/${symbol.toLowerCase()}.svg`;
}
