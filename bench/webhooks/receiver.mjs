// The bench's receiver in a process of its own (so the benchmark process writing the outbox never
// delays a receipt): answers 200 (after 20 ms under /slow/), keeps the first receipt time of each X-Platform-Webhook-Id, and
// the most requests it had open at once (from the request's headers to the answer sent).
import { createServer } from 'node:http';

const received = new Map();
/** `waitFor`: the count the bench waits for (0: none); told once, when it is reached, not polled (a poll every few ms took CPU from the drain it measured, and only from the sender's: the bare loop times itself). */
let waitingFor = 0;
const reached = () => {
  waitingFor = 0;
  process.send({ type: 'waitFor', count: received.size });
};
let open = 0;
let maxOpen = 0;
const server = createServer((req, res) => {
  open++;
  maxOpen = Math.max(maxOpen, open);
  res.once('finish', () => open--);
  req.on('data', () => {});
  req.on('end', () => {
    const id = req.headers['x-platform-webhook-id'];
    if (!received.has(id)) {
      received.set(id, Number(process.hrtime.bigint()) / 1e6); // the bench's clock (run.mjs)
      if (waitingFor > 0 && received.size >= waitingFor) reached();
    }
    // Addresses under /slow/ answer after 20 ms, so that the requests a sender keeps open show.
    if (req.url.includes('/slow/')) setTimeout(() => res.writeHead(200).end(), 20);
    else res.writeHead(200).end();
  });
});
// Keep-alive connections outlive the sender's 4 s idle timeout: the sender closes them, not us.
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.type === 'count') process.send({ type: 'count', count: received.size });
  if (m.type === 'waitFor') {
    waitingFor = m.n;
    if (received.size >= m.n) reached();
  }
  if (m.type === 'times') process.send({ type: 'times', times: m.ids.map((id) => received.get(id) ?? null) });
  if (m.type === 'maxOpen') {
    process.send({ type: 'maxOpen', maxOpen });
    maxOpen = 0;
  }
  if (m.type === 'stop') server.close(() => process.exit(0));
});
