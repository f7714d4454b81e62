// A webhook receiver that verifies every delivery with the SDK before trusting it.
//   SECRET=<app secret> PORT=4000 node examples/webhook-receiver.mjs
// It verifies the signature over the exact bytes received (never over re-serialised JSON), answers
// 200 to a verified delivery and 401 to anything else, and prints what it got.
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@platform/sdk';

const secret = process.env.SECRET ?? '';
if (!secret) {
  console.error('SECRET (the app secret) is required');
  process.exit(2);
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const webhook = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
      // Deliveries are at least once: deduplicate on webhook.webhookId in a real app.
      console.log(`verified ${webhook.topic} ${webhook.webhookId} from ${webhook.shopDomain}: ${JSON.stringify(webhook.payload)}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.log(`refused: ${error.message}`);
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: error.message }));
    }
  });
});

server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
