// The baseline of the engine benchmarks: a bare server of the engine's own
// framework (the same Fastify from node_modules) on 127.0.0.1 that answers fixed
// JSON of the same size as the engine's answers, with no store, no auth and no
// throttle. Run by bench/bench-servers.ts as
//   node --import tsx bench/bare-server.ts BODIES.json
// where BODIES.json is {"detail": "<json text>", "list": "<json text>"}.
import fs from 'node:fs';
import Fastify from 'fastify';

const file = process.argv[2];
if (!file) throw new Error('usage: bare-server.ts BODIES.json');
const bodies = JSON.parse(fs.readFileSync(file, 'utf8')) as { detail: string; list: string };
// Parsed once; Fastify serialises them on every answer, as it does the engine's.
const detail = JSON.parse(bodies.detail) as unknown;
const list = JSON.parse(bodies.list) as unknown;

const app = Fastify({ logger: false });
app.get('/detail', async () => detail);
app.get('/list', async () => list);
// Like the engine's PATCH it reads and parses a JSON body; it writes nothing.
app.patch('/detail', async (request) => {
  if (typeof request.body !== 'object' || request.body === null) throw new Error('expected a JSON object');
  return detail;
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening on ${address}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
