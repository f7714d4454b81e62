import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenReminderWorker } from '../src/reminders/token-reminders.worker';
import { operator, startPlatform, type TestPlatform } from './harness';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP receiver on loopback: what the platform's mails reach. */
let smtp: SMTPServer;
let smtpPort: number;
const inbox: Received[] = [];
let refuse = false;

let t: TestPlatform;
const op = () => operator(t);
const worker = () => t.platform.app.get(TokenReminderWorker);
const DAY = 86_400_000;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        if (refuse && session.envelope.rcptTo.some((r) => r.address.includes('bounce'))) return callback(new Error('mailbox unavailable'));
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  t = await startPlatform({ PLATFORM_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PLATFORM_TOKEN_REMINDER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const setClock = (now: Date) => op().call('/clock', { body: { now: now.toISOString() } });

describe('private token expiry reminders (decisions §5.4)', () => {
  it('mails the store owner once, 30 days before the token expires, and records it', async () => {
    await setClock(new Date('2026-11-24T10:00:00Z'));
    await op().createStore('remind', { email: 'owner@remind.example' });
    const app = await op().createPrivateApp('remind', ['read_products']);
    const expiresAt = new Date(app.expires_at);
    expect(expiresAt.toISOString()).toBe('2029-11-24T10:00:00.000Z');

    expect(await worker().runOnce()).toBe(0);
    await setClock(new Date(expiresAt.getTime() - 31 * DAY));
    expect(await worker().runOnce()).toBe(0);
    expect(inbox).toEqual([]);

    await setClock(new Date(expiresAt.getTime() - 30 * DAY));
    expect(await worker().runOnce()).toBe(1);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.to).toEqual(['owner@remind.example']);
    expect(inbox[0]!.data).toContain(`App for remind`);
    expect(inbox[0]!.data).toContain('2029-11-24T10:00:00+00:00');

    const token = await t.db.prisma.accessToken.findFirstOrThrow({ where: { installation: { appId: BigInt(app.app.id) } } });
    expect(token.reminderSentAt?.toISOString()).toBe(new Date(expiresAt.getTime() - 30 * DAY).toISOString());

    // Once: later passes, and a day later, send nothing more.
    expect(await worker().runOnce()).toBe(0);
    await setClock(new Date(expiresAt.getTime() - 29 * DAY));
    expect(await worker().runOnce()).toBe(0);
    expect(inbox).toHaveLength(1);
  });

  it('does not remind a token a refresh replaced, nor an expired one', async () => {
    inbox.length = 0;
    await setClock(new Date('2026-11-24T10:00:00Z'));
    await op().createStore('refreshed');
    const app = await op().createPrivateApp('refreshed', ['read_products']);
    await setClock(new Date(new Date(app.expires_at).getTime() - 40 * DAY));
    const refreshed = await op().call(`/stores/refreshed/apps/${app.app.id}/token/refresh`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    await setClock(new Date(new Date(app.expires_at).getTime() - 10 * DAY));
    expect(await worker().runOnce()).toBe(0);
    await setClock(new Date(new Date(app.expires_at).getTime() + DAY));
    expect(await worker().runOnce()).toBe(0);
    expect(inbox).toEqual([]);
  });

  it('tries again after a pause when the mail server refuses, without holding up the others', async () => {
    inbox.length = 0;
    await setClock(new Date('2026-11-24T10:00:00Z'));
    await op().createStore('bounce', { email: 'owner@bounce.example' });
    await op().createStore('punctual', { email: 'owner@punctual.example' });
    const app = await op().createPrivateApp('bounce', ['read_products']);
    await op().createPrivateApp('punctual', ['read_products']);
    const dueAt = new Date(new Date(app.expires_at).getTime() - 5 * DAY);
    await setClock(dueAt);
    refuse = true;
    try {
      // The refused reminder does not stop the other one in the same pass.
      expect(await worker().runOnce()).toBe(1);
      expect(inbox.map((m) => m.to[0])).toEqual(['owner@punctual.example']);
      const token = await t.db.prisma.accessToken.findFirstOrThrow({ where: { installation: { appId: BigInt(app.app.id) } } });
      expect(token.reminderSentAt).toBeNull();
      expect(token.reminderFailures).toBe(1);
      expect(token.reminderRetryAt?.toISOString()).toBe(new Date(dueAt.getTime() + 5 * 60_000).toISOString());
      // It waits its pause: a pass right after sends nothing.
      expect(await worker().runOnce()).toBe(0);
    } finally {
      refuse = false;
    }
    inbox.length = 0;
    await setClock(new Date(dueAt.getTime() + 5 * 60_000));
    expect(await worker().runOnce()).toBe(1);
    expect(inbox.map((m) => m.to[0])).toEqual(['owner@bounce.example']);
  });
});
