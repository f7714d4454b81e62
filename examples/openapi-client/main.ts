/*
 * Runs the README's flow with the generated client against a running platform:
 *   OPERATOR_TOKEN=<operator token> pnpm --filter @platform/examples openapi-client
 * BASE_URL defaults to http://127.0.0.1:3000; each run makes a new store (HANDLE to name it).
 */
import { runFlow } from './flow.js';

const operatorToken = process.env['OPERATOR_TOKEN'];
if (!operatorToken) {
  console.error('OPERATOR_TOKEN is required: the operator token `./dev.sh start` printed (or data/dev-secrets.json)');
  process.exit(2);
}
const result = await runFlow({
  baseUrl: process.env['BASE_URL'] ?? 'http://127.0.0.1:3000',
  operatorToken,
  handle: process.env['HANDLE'] ?? `generated-${Date.now().toString(36)}`,
  log: (line) => console.log(line),
});
console.log(JSON.stringify(result, null, 2));
