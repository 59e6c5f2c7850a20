/** Epoch ms of the minute after `time` (answers resolved to the minute change then). */
export function nextMinute(time: Date): number {
  return (Math.floor(time.getTime() / 60_000) + 1) * 60_000;
}
