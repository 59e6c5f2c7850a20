/** Channel names are interpolated into `LISTEN`, so only plain identifiers are accepted. */
export function assertChannelName(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
    throw new TypeError(
      `Invalid channel name ${JSON.stringify(channel)}: use lower-case letters, digits and _ (at most 63).`,
    );
  }
}
