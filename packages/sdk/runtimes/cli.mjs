// The flow from a command line (Node, Bun, Deno): the configuration in SDK_FLOW_CONFIG, the result
// as one JSON line on stdout. Deno's own API reads the environment, so no Node compatibility is needed.
import { runFlow } from './flow.mjs';

const env = globalThis.Deno ? (name) => globalThis.Deno.env.get(name) : (name) => globalThis.process.env[name];
console.log(JSON.stringify(await runFlow(JSON.parse(env('SDK_FLOW_CONFIG')))));
