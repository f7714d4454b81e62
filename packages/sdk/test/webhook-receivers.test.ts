/*
 * Each webhook handler in a real app (Express, Fastify, NestJS on Fastify) receiving a real signed
 * POST over loopback HTTP. Signed with the domain's signWebhookBody, the sender's rule (decisions §11.3).
 */
import 'reflect-metadata';
import { Controller, HttpCode, Module, Post, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { signWebhookBody } from '@platform/domain/signing';
import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformWebhook } from '../src/express';
import { platformWebhookHandler, registerPlatformWebhook } from '../src/fastify';
import type { VerifiedWebhook } from '../src/index';
import { PlatformWebhook, PlatformWebhookGuard } from '../src/nestjs';

const SECRET = 'app-secret-for-webhooks-0123456789';
const BODY = JSON.stringify({ inventory_item: { id: '41', variant_id: '7', sku: 'SKU-ü', cost: '12.50', tracked: 'true' } });

function headers(body: string, signature = signWebhookBody(body, SECRET)): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-platform-topic': 'inventory_items/update',
    'x-platform-hmac-sha256': signature,
    'x-platform-shop-domain': 'demo.myplatform.com',
    'x-platform-shop-id': '1',
    'x-platform-merchant-id': '9',
    'x-platform-api-version': 'v20260901',
    'x-platform-webhook-id': 'wh-1',
    'x-platform-triggered-at': '2026-11-22T12:05:01+08:00',
  };
}

let received: VerifiedWebhook[] = [];
beforeEach(() => {
  received = [];
});

async function post(url: string, body: string, h = headers(body)) {
  const response = await fetch(url, { method: 'POST', headers: h, body });
  return { status: response.status, body: (await response.json()) as { errors?: string } };
}

function sharedCases(url: () => string, parsedFirstUrl: () => string) {
  it('answers 200 to a signed POST and hands over the typed payload', async () => {
    expect(await post(url(), BODY)).toEqual({ status: 200, body: {} });
    expect(received).toHaveLength(1);
    const webhook = received[0]!;
    expect(webhook).toMatchObject({
      topic: 'inventory_items/update',
      webhookId: 'wh-1',
      shopDomain: 'demo.myplatform.com',
      apiVersion: 'v20260901',
    });
    expect(webhook.payload).toEqual(JSON.parse(BODY));
  });

  it('accepts a base64 signature too', async () => {
    const hex = signWebhookBody(BODY, SECRET);
    const base64 = Buffer.from(hex, 'hex').toString('base64');
    expect((await post(url(), BODY, headers(BODY, base64))).status).toBe(200);
  });

  it('answers 401 to a body changed after signing, and does not run the handler', async () => {
    const tampered = BODY.replace('12.50', '0.01');
    const answer = await post(url(), tampered, headers(BODY));
    expect(answer.status).toBe(401);
    expect(answer.body.errors).toMatch(/does not match/);
    expect(received).toEqual([]);
  });

  it('answers 401 without a signature', async () => {
    const h = headers(BODY);
    delete h['x-platform-hmac-sha256'];
    expect((await post(url(), BODY, h)).status).toBe(401);
    expect(received).toEqual([]);
  });

  it('fails with a clear message when a JSON parser got to the body first', async () => {
    const answer = await post(parsedFirstUrl(), BODY);
    expect(answer.status).toBe(500);
    expect(answer.body.errors).toMatch(/JSON body parser ran first/);
    expect(received).toEqual([]);
  });
}

describe('Express', () => {
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    const app = express();
    const onWebhook = (webhook: VerifiedWebhook) => void received.push(webhook);
    app.post('/webhooks', platformWebhook({ secret: SECRET, onWebhook }));
    // The mistake the message is for: the app's JSON parser ahead of the webhook route.
    app.post('/parsed/webhooks', express.json(), platformWebhook({ secret: SECRET, onWebhook }));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  sharedCases(
    () => `${origin}/webhooks`,
    () => `${origin}/parsed/webhooks`,
  );

  it('also takes the raw body express.raw() kept', async () => {
    const app = express();
    app.post(
      '/raw',
      express.raw({ type: 'application/json' }),
      platformWebhook({ secret: SECRET, onWebhook: (w) => void received.push(w) }),
    );
    const s = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      expect((await post(`http://127.0.0.1:${(s.address() as AddressInfo).port}/raw`, BODY)).status).toBe(200);
      expect(received).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });
});

describe('Fastify', () => {
  const app = Fastify();
  let origin = '';
  beforeAll(async () => {
    const onWebhook = (webhook: VerifiedWebhook) => void received.push(webhook);
    registerPlatformWebhook(app, '/webhooks', { secret: SECRET, onWebhook });
    // Fastify's own JSON parser on this route: the handler alone cannot see the bytes.
    app.post('/parsed/webhooks', platformWebhookHandler({ secret: SECRET, onWebhook }) as never);
    // The rest of the app keeps parsing JSON.
    app.post('/other', async (request) => ({ echo: request.body }));
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  sharedCases(
    () => `${origin}/webhooks`,
    () => `${origin}/parsed/webhooks`,
  );

  it('leaves JSON parsing of the other routes alone', async () => {
    const response = await fetch(`${origin}/other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await response.json()).toEqual({ echo: { a: 1 } });
  });
});

describe('NestJS (Fastify adapter)', () => {
  @Controller()
  class WebhooksController {
    @Post('webhooks')
    @HttpCode(200)
    @UseGuards(new PlatformWebhookGuard({ secret: SECRET }))
    handle(@PlatformWebhook() webhook: VerifiedWebhook) {
      received.push(webhook);
      return {};
    }
  }
  @Module({ controllers: [WebhooksController] })
  class AppModule {}

  let app: NestFastifyApplication;
  let parsedApp: NestFastifyApplication;
  let origin = '';
  let parsedOrigin = '';
  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { rawBody: true, logger: false });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
    // Without rawBody: Nest's JSON parser keeps no bytes.
    parsedApp = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: false });
    await parsedApp.listen(0, '127.0.0.1');
    parsedOrigin = await parsedApp.getUrl();
  });
  afterAll(async () => {
    await app.close();
    await parsedApp.close();
  });
  sharedCases(
    () => `${origin.replace('[::1]', '127.0.0.1')}/webhooks`,
    () => `${parsedOrigin.replace('[::1]', '127.0.0.1')}/webhooks`,
  );
});
