// bench/webhooks: the bare keep-alive loop in a process of its own, as the sender is (so neither
// the benchmark's own heap nor its database work lands on the baseline): told the receiver, the
// bodies and how to send, it POSTs them with `workers` keep-alive workers and answers with its
// rate and its CPU per POST. The first loop it runs is its warm-up (the caller discards it).
import { request } from 'undici';
import { createDeliveryAgent } from '../../apps/webhooks/dist/deliver.js';
import { deliveryHeaders as bareHeaders, keepAliveAgent } from './signed-post.mjs';

/**
 * `workers` keep-alive workers POSTing the bodies, headers as the sender's, with undici's
 * `request()` (what a hand-written loop uses), or with `client`: the sender's delivery agent
 * (apps/webhooks/src/deliver.ts, built: the same undici through its own dispatch handler, the
 * whole-answer timer, the body cap), the floor: what sending alone costs the sender.
 */
async function loop(m) {
  const agent = keepAliveAgent();
  const client = createDeliveryAgent({ allowPrivate: true, connectTimeoutMs: 1000, timeoutMs: 5000 });
  const target = `${m.url}/bare`;
  const { bodies, url } = m;
  let next = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: m.workers }, async () => {
      while (next < bodies.length) {
        const b = bodies[next++];
        if (m.how === 'client') {
          await client.post(target, b, bareHeaders(b, m));
          continue;
        }
        const res = await request(`${url}/bare`, { method: 'POST', dispatcher: agent, body: b, headers: bareHeaders(b, m) });
        await res.body.dump();
      }
    }),
  );
  const rate = bodies.length / ((performance.now() - t0) / 1000);
  const cpu = process.cpuUsage(cpu0);
  await agent.close();
  await client.close();
  return { rate, cpuUsPerPost: (cpu.user + cpu.system) / bodies.length };
}

let bodies = [];
process.on('message', async (m) => {
  if (m.type === 'bodies') {
    bodies = m.bodies;
    process.send({ type: 'bodies' });
  }
  if (m.type === 'loop') process.send({ type: 'loop', ...(await loop({ ...m, bodies: m.count ? bodies.slice(0, m.count) : bodies })) });
  if (m.type === 'stop') process.exit(0);
});
process.send({ type: 'ready' });
