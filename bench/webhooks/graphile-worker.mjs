// bench/webhooks/queue.mjs's other side: what a platform team without our sender would run, a
// PostgreSQL job queue (graphile-worker, library mode) with one job per event whose task POSTs the
// signed body with undici (a keep-alive Agent) and throws on an answer other than 2xx, so that
// graphile-worker retries it on its own backoff. A process of its own, as our sender is, on the
// same database (its own schema, graphile_worker). Told over IPC: `start` (a runner with the given
// concurrency), `stop` (that runner, gracefully), `exit`. Logs at warning and above, as our sender
// runs at LOG_LEVEL=warn (graphile-worker logs every completed job at info).
import gw from 'graphile-worker';
import { request } from 'undici';
import { deliveryHeaders, keepAliveAgent } from './signed-post.mjs';

const { Logger, run, runMigrations } = gw;
const connectionString = process.env.DATABASE_URL;
const signing = { topic: process.env.QUEUE_TOPIC, version: process.env.QUEUE_VERSION, secret: process.env.QUEUE_SECRET };
const agent = keepAliveAgent();
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`graphile-worker ${level}: ${message}`);
});

/** The task: `payload` is what the bench's add_jobs wrote, the address, the body and the event's id. */
async function deliver({ url, body, webhookId }) {
  const res = await request(url, { method: 'POST', dispatcher: agent, body, headers: deliveryHeaders(body, signing, webhookId) });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${url} answered ${res.statusCode}`);
}

let runner = null;
process.on('message', async (m) => {
  if (m.type === 'start') {
    runner = await run({ connectionString, concurrency: m.concurrency, noHandleSignals: true, logger, taskList: { deliver } });
    process.send({ type: 'start' });
  }
  if (m.type === 'stop') {
    await runner?.stop();
    runner = null;
    process.send({ type: 'stop' });
  }
  if (m.type === 'exit') {
    await agent.close();
    process.exit(0);
  }
});
// Its schema first, so the bench can add jobs before any runner starts.
await runMigrations({ connectionString, logger });
process.send({ type: 'ready' });
