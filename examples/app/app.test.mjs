// The quick-start app end to end, as `./dev.sh start` runs the platform: the built API (demo store
// seeded, private webhook targets allowed, the system clock, which the app's signed token calls
// are checked against) and a webhook sender beside it on a SQLite file of its own; then the app,
// run as its README says. A second run (`--manual`) is approved by this test acting as the person
// at the browser, from the two links the app prints.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { SENDER_MAIN, startApi, startProgram } from '@platform/test-process';
import { approveAsMerchant } from './merchant-browser.mjs';

const APP = join(dirname(fileURLToPath(import.meta.url)), 'app.mjs');
const LIST_PRODUCTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'sdk-list-products.mjs');
const OPERATOR_TOKEN = 'examples-operator-token-0123456789';
const DEMO_TOKEN = 'examples-demo-token-0123456789abcdef';
let dir;
let api;
let sender;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'example-app-'));
  const shared = { DATABASE_URL: `file:${join(dir, 'platform.db')}`, PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' };
  api = await startApi({
    ...shared,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'examples-secret-0123456789abcdef',
    PLATFORM_SEED_DEMO: 'true',
    PLATFORM_DEMO_TOKEN: DEMO_TOKEN,
  });
  sender = startProgram(SENDER_MAIN, { env: { ...shared, PLATFORM_SENDER_POLL_MS: '100' } });
});

after(async () => {
  await sender?.stop();
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the app with `args`; `onLine` sees each line of its output as it comes. Resolves to its exit code and output. */
function runApp(args, onLine = () => {}) {
  const child = spawn(process.execPath, [APP, ...args], {
    env: { PATH: process.env.PATH ?? '', BASE_URL: api.origin, OPERATOR_TOKEN, APP_DATA_DIR: join(dir, 'app-data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pending = '';
  const read = (chunk) => {
    output += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) void onLine(line);
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('the quick-start app against the platform', () => {
  it(
    'registers, is installed through the consent page, keeps its token in SQLite, verifies a delivery, sets a value under a rule',
    { timeout: 150_000 },
    async () => {
      let forged;
      const { code, output } = await runApp(['--once'], (line) => {
        // A delivery that is not the platform's (no valid signature) is refused, not trusted.
        const receiver = /^subscribed to inventory_items\/update at (\S+)/.exec(line)?.[1];
        if (receiver) {
          forged = fetch(receiver, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-platform-hmac-sha256': 'ab'.repeat(32),
              'x-platform-topic': 'inventory_items/update',
            },
            body: '{"inventory_item":{"id":"1","cost":"0.01"}}',
          }).then((r) => r.status);
        }
      });
      assert.equal(code, 0, output);
      assert.equal(await forged, 401, output);
      for (const expected of [
        /registered app \d+ \(app key [0-9a-f]+\)/,
        /approved on the consent page \("Install Quick-start app\?"\), redirected to \/oauth\/callback/,
        /installed on demo: token \S+\.\.\. \(scopes write_products,read_inventory,write_metafields,read_store_information\) kept in .*tokens\.db/,
        /calling the Admin API v20260901 as .* \(demo\)/,
        /subscribed to inventory_items\/update at http:\/\/127\.0\.0\.1:\d+\/webhooks/,
        /definition quickstart\.subtitle \(single_line_text_field, max 40 characters\)/,
        /value set on product \d+ \(.*\): "Hand-made in Lisbon"/,
        /the rule refused 41 characters: 422 metafields\[0\]\.value: .*maximum length of 40/,
        /refused a delivery \(BAD_SIGNATURE\)/,
        /verified inventory_items\/update \S+ from demo\.localhost: item \d+ cost \d+\.\d+/,
      ]) {
        assert.match(output, expected);
      }

      // The token the consent gave is in the SQLite file, and it is the store's.
      const db = new Database(join(dir, 'app-data', 'tokens.db'), { readonly: true });
      const rows = db.prepare('SELECT * FROM platform_sdk_tokens').all();
      db.close();
      assert.equal(rows.length, 1);
      const shop = await fetch(`${api.origin}/admin/openapi/v20260901/merchants/shop.json`, {
        headers: { authorization: `Bearer ${rows[0].access_token}` },
      });
      assert.equal(shop.status, 200);
      assert.equal((await shop.json()).data.handle, 'demo');
    },
  );

  it(
    '--manual prints the sign-in link and the consent page; approved from them, it runs on (the definition of the first run reused)',
    { timeout: 150_000 },
    async () => {
      const links = {};
      let approved;
      const { code, output } = await runApp(['--manual', '--once'], (line) => {
        links.signIn ??= /^Sign in as the merchant:\s+(\S+)/.exec(line)?.[1];
        links.authorize ??= /^then approve the app here:\s+(\S+)/.exec(line)?.[1];
        if (links.signIn && links.authorize && !approved)
          approved = approveAsMerchant({ signInUrl: links.signIn, authorizeUrl: links.authorize });
      });
      assert.equal(code, 0, output);
      assert.match(links.signIn, /^http:\/\/demo\.localhost:\d+\/admin\/sign-in\?token=/);
      assert.match(links.authorize, /^http:\/\/demo\.localhost:\d+\/admin\/oauth\/authorize\?appKey=/);
      assert.equal((await approved).answer, 'Installed on demo. You can close this tab.\n');
      assert.match(output, /definition quickstart\.subtitle/);
      assert.match(output, /verified inventory_items\/update/);
    },
  );
});

describe('examples/sdk-list-products.mjs', () => {
  const list = (env) =>
    promisify(execFile)(process.execPath, [LIST_PRODUCTS], { env: { PATH: process.env.PATH ?? '', ...env } }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it("pages through the demo store at BASE_URL (the port is the kernel's choice here)", async () => {
    const { code, stdout, stderr } = await list({ BASE_URL: api.origin, TOKEN: DEMO_TOKEN });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^first page: \d+ /m);
    assert.match(stdout, /^iterated \d+ products$/m);
  });

  it('where nothing listens, says which host and port it tried and that BASE_URL moves it', async () => {
    const closed = createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address();
    await new Promise((resolve) => closed.close(resolve));
    const { code, stderr } = await list({ BASE_URL: `http://127.0.0.1:${port}`, TOKEN: DEMO_TOKEN });
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^GET /admin/openapi/v20260901/products/products\\.json at 127\\.0\\.0\\.1:${port}: network error: fetch failed: connect ECONNREFUSED`,
        'm',
      ),
    );
    assert.match(stderr, /Set BASE_URL/);
  });
});
