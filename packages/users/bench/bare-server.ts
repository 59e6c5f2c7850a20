// The practical limit: a bare Fastify + pg handler with no validation, logging or pages.
// BARE_MODE=rows returns pg's parsed rows (JSON.stringify); BARE_MODE=sql-json sends the same
// database-built JSON string the service uses.
import Fastify from 'fastify';
import pg from 'pg';

pg.types.setTypeParser(20, Number); // bigint ids as numbers, like the service's output

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const mode = process.env.BARE_MODE ?? 'rows';
// Drop keep-alive sockets on close so SIGTERM ends the process promptly.
const app = Fastify({ logger: false, forceCloseConnections: true });

const LIST_JSON = `select coalesce((select '[' || string_agg(row_to_json(u)::text, ',' order by u.id) || ']'
  from (select _id, id, name, pro from users order by id limit 1000) u), '[]') as json`;

app.get('/users', async (_request, reply) => {
  if (mode === 'sql-json') {
    const { rows } = await pool.query(LIST_JSON);
    return reply.type('application/json; charset=utf-8').send(rows[0].json);
  }
  const { rows } = await pool.query('select _id, id, name, pro from users order by id limit 1000');
  return rows;
});

let seq = 0;
app.post('/add', async (request, reply) => {
  const body = request.body as { id: number; name: string; pro: string };
  seq += 1;
  const _id = `${Date.now().toString(16).padStart(12, '0')}${seq.toString(16).padStart(12, '0')}`;
  const { rows } = await pool.query(
    'insert into users (_id, id, name, pro) values ($1, $2, $3, $4) returning _id, id, name, pro',
    [_id, body.id, body.name, body.pro],
  );
  return reply.code(201).send(rows[0]);
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  `listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`,
);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
