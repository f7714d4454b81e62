// The bench's receiver in a process of its own (so the benchmark process writing the outbox never
// delays a receipt): answers 200, keeps the first receipt time of each X-Platform-Webhook-Id.
import { createServer } from 'node:http';

const received = new Map();
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const id = req.headers['x-platform-webhook-id'];
    if (!received.has(id)) received.set(id, performance.timeOrigin + performance.now());
    res.writeHead(200).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.type === 'count') process.send({ type: 'count', count: received.size });
  if (m.type === 'times') process.send({ type: 'times', times: m.ids.map((id) => received.get(id) ?? null) });
  if (m.type === 'stop') server.close(() => process.exit(0));
});
