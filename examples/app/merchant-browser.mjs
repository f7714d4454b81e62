// What a merchant's browser does on the consent page, over plain HTTP: open the one-time sign-in
// link (a session cookie), open the app's consent URL, press Approve (the page's form: its one-time
// consent token, the session cookie, the page's Origin), and follow the redirect to the app's
// callback. The same requests, in the same order, as a person clicking through it in a browser.
import { lookup as dnsLookup } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * `{handle}.localhost` is loopback in every browser (RFC 6761), which is how the development
 * platform serves each store on its own host; Node's resolver does not know those names. This
 * fetch resolves them as a browser does and everything else as usual. In production stores are
 * `https://{handle}.myplatform.com` and the SDK's default fetch is all an app needs.
 */
const loopbackNames = new Agent({
  connect: {
    lookup(hostname, options, callback) {
      if (hostname !== 'localhost' && !hostname.endsWith('.localhost')) return dnsLookup(hostname, options, callback);
      if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
      return callback(null, '127.0.0.1', 4);
    },
  },
});
export const localFetch = (url, init = {}) => undiciFetch(url, { ...init, dispatcher: loopbackNames });

/** A browser's cookie jar for one host at a time, enough for the platform's session cookie. */
function cookieJar() {
  const cookies = new Map();
  return {
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    keep(response) {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
      }
    },
  };
}

async function expectStatus(response, status, what) {
  if (response.status === status) return;
  const text = await response.text().catch(() => '');
  // The platform's pages say what went wrong in their <h1> and first paragraph.
  const said = text
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
  throw new Error(`${what}: HTTP ${response.status} (expected ${status}): ${said}`);
}

/**
 * Signs in with `signInUrl`, approves the consent page at `authorizeUrl` and follows the redirect
 * to the app's callback. Resolves to the callback's answer once the app has handled it.
 */
export async function approveAsMerchant({ signInUrl, authorizeUrl }) {
  const jar = cookieJar();
  const signIn = await localFetch(signInUrl, { redirect: 'manual' });
  await expectStatus(signIn, 303, 'opening the sign-in link');
  jar.keep(signIn);

  const consent = await localFetch(authorizeUrl, { headers: { cookie: jar.header() } });
  await expectStatus(consent, 200, 'opening the consent page');
  const page = await consent.text();
  const consentToken = /name="consent_token" value="([^"]+)"/.exec(page)?.[1];
  if (!consentToken) throw new Error('the consent page has no Approve form');
  const title = /<h1>([^<]*)<\/h1>/.exec(page)?.[1];

  const origin = new URL(authorizeUrl).origin;
  const decided = await localFetch(new URL('/admin/oauth/authorize', origin), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar.header(), origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ consent_token: consentToken, decision: 'approve' }).toString(),
  });
  await expectStatus(decided, 303, 'approving on the consent page');
  const callback = decided.headers.get('location');
  const answer = await localFetch(callback);
  await expectStatus(answer, 200, "the app's callback");
  return { page: title, callback: new URL(callback).pathname, answer: await answer.text() };
}
