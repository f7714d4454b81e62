import { execFileSync } from 'node:child_process';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { chromium } from 'playwright-core';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, ensureChromium } from '../test/browser';
import { admin, call, OPERATOR_TOKEN, operatorAt, type Cluster } from './cluster';

// decisions §12.6 on the cluster of scripts/cluster.sh: HAProxy terminates TLS with a certificate
// for the base domain and *.{base domain} signed by the cluster's throwaway CA; plain HTTP on a
// store host is answered 308; over HTTPS the session cookie is Secure and pages send HSTS.
// Registered by replicas.cluster.test.ts, on its cluster (a cluster start costs more than these).

/** Every name under the base domain is this machine (curl and Chromium do so for .localhost themselves; glibc does not). */
function loopback(
  _host: string,
  options: LookupOptions,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
): void {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

/** A client that trusts the cluster's CA, and nothing else (`ca` replaces Node's own roots). */
export const trusting = (cluster: Cluster) => new Agent({ connect: { ca: readFileSync(cluster.ca), lookup: loopback } });

/** Chromium whose certificate store (a throwaway NSS database, as `certutil` makes one) trusts the CA. */
async function chromiumTrusting(ca: string) {
  const home = mkdtempSync(join(tmpdir(), 'platform-tls-browser-'));
  const nssdb = `sql:${join(home, '.pki', 'nssdb')}`;
  mkdirSync(join(home, '.pki', 'nssdb'), { recursive: true });
  execFileSync('certutil', ['-N', '-d', nssdb, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', nssdb, '-n', 'platform cluster CA', '-t', 'C,,', '-i', ca]);
  const browser = await chromium.launch({
    executablePath: ensureChromium(CHROMIUM),
    args: ['--no-sandbox'],
    env: { ...process.env, HOME: home },
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export function describeTls(get: () => Cluster): void {
  describe('TLS on every store host (decisions §12.6)', () => {
    let agent: Agent;
    let token: string;
    beforeAll(async () => {
      const cluster = get();
      agent = trusting(cluster);
      token = (await operatorAt(cluster.lb).storeWithApp('tls')).token;
      const made = await operatorAt(cluster.lb).call('/stores/tls/products', { body: { products: [{ title: 'A' }, { title: 'B' }] } });
      expect(made.status).toBe(201);
    });
    afterAll(() => agent?.close());

    it('the certificate names the base domain and *.{base domain}; a client without the CA refuses it', async () => {
      const { https } = get();
      const url = new URL(https);
      const names = await new Promise<string>((resolve, reject) => {
        const socket = connect(
          { host: '127.0.0.1', port: Number(url.port), servername: `shop.${url.hostname}`, ca: readFileSync(get().ca) },
          () => {
            resolve(socket.getPeerCertificate().subjectaltname ?? '');
            socket.end();
          },
        );
        socket.on('error', reject);
      });
      expect(names).toBe(`DNS:${url.hostname}, DNS:*.${url.hostname}`);
      const untrusting = new Agent({ connect: { lookup: loopback } });
      try {
        await expect(call(`${https}/healthz`, { dispatcher: untrusting })).rejects.toThrow(/certificate/i);
      } finally {
        await untrusting.close();
      }
    });

    it("an Admin API call over HTTPS to a store host: served, its links on that host in https, a client's X-Forwarded-* ignored", async () => {
      const origin = get().storeHttps('tls');
      const page = await call(admin(origin, '/products/products.json?limit=1'), {
        token,
        dispatcher: agent,
        headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example', forwarded: 'host=evil.example;proto=http' },
      });
      expect(page.status).toBe(200);
      expect(page.body.products).toHaveLength(1);
      expect(page.headers.link).toMatch(new RegExp(`^<${origin.replace(/\./g, '\\.')}/admin/openapi/`));
    });

    it('plain HTTP to a store host (or the base domain) is answered 308 to the same path and query over HTTPS; by address it stays plain', async () => {
      const cluster = get();
      const { hostname: base, port: httpsPort } = new URL(cluster.https);
      const path = '/admin/openapi/v20260901/products/products.json?limit=1&title=A';
      for (const host of [`tls.${base}`, base]) {
        for (const method of ['GET', 'POST']) {
          const answer = await call(`${cluster.lb}${path}`, { method, token, headers: { host: `${host}:${cluster.env.LB_PORT}` } });
          expect(answer.status, `${method} ${host}`).toBe(308);
          expect(answer.headers.location).toBe(`https://${host}:${httpsPort}${path}`);
        }
      }
      expect((await call(admin(cluster.lb, '/products/products.json?limit=1'), { token })).status).toBe(200);
    });

    it('the merchant sign-in over HTTPS in Chromium trusting the CA: signed in, the session cookie Secure, pages send Strict-Transport-Security', async () => {
      const cluster = get();
      const link = await call(`${cluster.https}/platform/v1/stores/tls/admin_sessions`, {
        method: 'POST',
        token: OPERATOR_TOKEN,
        dispatcher: agent,
      });
      expect(link.status).toBe(201);
      const origin = cluster.storeHttps('tls');
      expect(link.body.url.startsWith(`${origin}/`)).toBe(true);
      const chrome = await chromiumTrusting(cluster.ca);
      try {
        const context = await chrome.browser.newContext();
        const page = await context.newPage();
        const answer = await page.goto(link.body.url);
        expect(answer?.status()).toBe(200);
        expect(new URL(page.url()).origin).toBe(origin);
        expect(answer?.headers()['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
        await page.getByRole('navigation', { name: 'Merchant admin' }).waitFor();
        const cookies = await context.cookies(origin);
        const session = cookies.find((c) => c.name === 'platform_admin_session');
        expect(session, JSON.stringify(cookies)).toBeDefined();
        expect(session!.secure).toBe(true);
        expect(session!.httpOnly).toBe(true);
        const products = await page.goto(`${origin}/admin/products`);
        expect(products?.status()).toBe(200);
        expect(products?.headers()['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
      } finally {
        await chrome.close();
      }
    });
  });
}
