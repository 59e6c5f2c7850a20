/** Channel names are interpolated into `LISTEN`, so only plain identifiers are accepted. */
export function assertChannelName(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
    throw new TypeError(
      `Invalid channel name ${JSON.stringify(channel)}: use lower-case letters, digits and _ (at most 63).`,
    );
  }
}

/** The channel list of a `listen` call, each checked. */
export function channelList(channel: string | readonly string[]): readonly string[] {
  const list = typeof channel === 'string' ? [channel] : channel;
  if (list.length === 0) throw new TypeError('listen needs at least one channel');
  for (const c of list) assertChannelName(c);
  return list;
}
