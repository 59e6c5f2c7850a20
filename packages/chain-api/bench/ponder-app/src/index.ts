import { ponder } from 'ponder:registry';
import { account, transferEvent } from 'ponder:schema';

ponder.on('ERC20:Transfer', async ({ event, context }) => {
  const token = event.log.address;
  await context.db
    .insert(account)
    .values({ token, address: event.args.from, balance: -event.args.value })
    .onConflictDoUpdate((row) => ({ balance: row.balance - event.args.value }));
  await context.db
    .insert(account)
    .values({ token, address: event.args.to, balance: event.args.value })
    .onConflictDoUpdate((row) => ({ balance: row.balance + event.args.value }));
  await context.db.insert(transferEvent).values({
    id: event.id,
    token,
    from: event.args.from,
    to: event.args.to,
    amount: event.args.value,
    timestamp: Number(event.block.timestamp),
  });
});
