// The receiver of bench/lib/receiver.mjs, in a process of its own (so the benchmark process never
// delays a receipt): answers 200, keeps the first receipt time of each X-Platform-Webhook-Id, and
// with RECEIVER_SECRET set checks each X-Platform-Hmac-Sha256 as a real receiver must, counting the
// bodies whose signature is wrong (still answered 200, so a bad one is reported, not retried).
// bench/webhooks keeps its own receiver (no signature check: the CPU would count against the sender).
import { createServer } from 'node:http';
import { verifyWebhookSignature } from '@platform/domain';

const secret = process.env.RECEIVER_SECRET;
const received = new Map();
let badSignatures = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => {
    if (secret) chunks.push(chunk);
  });
  req.on('end', () => {
    const id = req.headers['x-platform-webhook-id'];
    if (!received.has(id)) received.set(id, performance.timeOrigin + performance.now());
    if (secret && !verifyWebhookSignature(Buffer.concat(chunks), req.headers['x-platform-hmac-sha256'], secret)) badSignatures++;
    res.writeHead(200).end();
  });
});
// Keep-alive connections outlive the sender's idle timeout: the sender closes them, not us.
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.type === 'count') process.send({ type: 'count', count: received.size, badSignatures });
  if (m.type === 'times') process.send({ type: 'times', times: m.ids.map((id) => received.get(id) ?? null) });
  if (m.type === 'stop') server.close(() => process.exit(0));
});
