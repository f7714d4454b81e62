// The flow as a Worker (workerd): a POST of the configuration runs it and answers the result.
import { runFlow } from './flow.mjs';

export default {
  async fetch(request) {
    if (request.method !== 'POST') return new Response('POST the flow configuration', { status: 405 });
    const result = await runFlow(await request.json());
    return new Response(JSON.stringify(result), { headers: { 'content-type': 'application/json' } });
  },
};
