/*
 * Each webhook handler (Express, Fastify, NestJS) in a real app receiving a real delivery from the
 * real sender: the API and `apps/webhooks` as processes on one SQLite file, subscriptions made with
 * the SDK, an inventory item changed through the operator API (decisions §10, §11).
 */
import 'reflect-metadata';
import { Controller, HttpCode, Module, Post, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import express from 'express';
import Fastify from 'fastify';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SENDER_MAIN, startProgram, type Program } from '@platform/test-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformWebhook } from '../src/express';
import { registerPlatformWebhook } from '../src/fastify';
import { createClient, type VerifiedWebhook } from '../src/index';
import { PlatformWebhook, PlatformWebhookGuard } from '../src/nestjs';
import { REPO_ROOT, startLiveServer, VERSION, type LiveServer } from './live-server';

const handle = 'hooks-live';

let server: LiveServer;
let sender: Program | undefined;
let secret = '';
let token = '';
const received: Record<'express' | 'fastify' | 'nest', VerifiedWebhook[]> = { express: [], fastify: [], nest: [] };
const closers: (() => Promise<unknown>)[] = [];

async function listenExpress(): Promise<string> {
  const app = express();
  app.post('/webhooks', platformWebhook({ secret, onWebhook: (w) => void received.express.push(w) }));
  const s = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  closers.push(() => new Promise((resolve) => s.close(resolve)));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/webhooks`;
}

async function listenFastify(): Promise<string> {
  const app = Fastify();
  registerPlatformWebhook(app, '/webhooks', { secret, onWebhook: (w) => void received.fastify.push(w) });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return `${origin}/webhooks`;
}

async function listenNest(): Promise<string> {
  @Controller()
  class WebhooksController {
    @Post('webhooks')
    @HttpCode(200)
    @UseGuards(new PlatformWebhookGuard({ secret }))
    handle(@PlatformWebhook() webhook: VerifiedWebhook) {
      received.nest.push(webhook);
      return {};
    }
  }
  @Module({ controllers: [WebhooksController] })
  class ReceiverModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ReceiverModule, new FastifyAdapter(), { rawBody: true, logger: false });
  await app.listen(0, '127.0.0.1');
  closers.push(() => app.close());
  return `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/webhooks`;
}

async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  server = await startLiveServer({ PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true' });
  await server.createStore(handle);
  const app = await server.createPrivateApp(handle);
  secret = app.appSecret;
  token = app.token;
  sender = startProgram(SENDER_MAIN, {
    env: { DATABASE_URL: server.databaseUrl, PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true', PLATFORM_SENDER_POLL_MS: '50', LOG_LEVEL: 'warn' },
    inherit: ['stdout', 'stderr'],
  });
}, 120_000);

afterAll(async () => {
  await sender?.stop();
  for (const close of closers) await close();
  await server?.close();
});

describe('the SDK handlers receiving real deliveries from the sender', () => {
  it('Express, Fastify and NestJS each verify and hand over the inventory item update', async () => {
    const client = createClient({ baseUrl: server.origin, accessToken: token, apiVersion: VERSION, rateLimit: false });
    const addresses = { express: await listenExpress(), fastify: await listenFastify(), nest: await listenNest() };
    for (const address of Object.values(addresses)) {
      const { webhook } = await client.admin.createWebhook({ body: { webhook: { topic: 'inventory_items/update', address } } });
      expect(webhook.status).toBe('enabled');
    }

    const product = await server.operator('POST', `/stores/${handle}/products`, {
      product: { title: 'Mug', variants: [{ sku: 'MUG-1', price: '9.90', cost: '3.10' }] },
    });
    const itemId = product.body.product.variants[0].inventory_item_id as string;
    const changed = await server.operator('PUT', `/stores/${handle}/inventory_items/${itemId}`, { inventory_item: { cost: '4.25' } });
    expect(changed.status).toBe(200);

    await waitFor(() => received.express.length > 0 && received.fastify.length > 0 && received.nest.length > 0, 'three deliveries');
    for (const [name, webhooks] of Object.entries(received)) {
      expect(webhooks, name).toHaveLength(1);
      const webhook = webhooks[0]!;
      expect(webhook.topic, name).toBe('inventory_items/update');
      expect(webhook.apiVersion, name).toBe(VERSION);
      expect(webhook.shopDomain, name).toBe(`${handle}.localhost`);
      expect(webhook.webhookId, name).toMatch(/^[0-9a-f-]{36}$/);
      expect(webhook.payload, name).toMatchObject({ inventory_item: { id: itemId, sku: 'MUG-1', cost: '4.25' } });
    }
    // One delivery per subscription: three different webhook ids.
    expect(new Set(Object.values(received).map((w) => w[0]!.webhookId)).size).toBe(3);
  }, 60_000);

  it("examples/webhook-receiver.mjs, the README's receiver, verifies a real delivery and refuses a forged one", async () => {
    const example = startProgram(join(REPO_ROOT, 'examples/webhook-receiver.mjs'), {
      env: { SECRET: secret, PORT: '0' },
      inherit: ['stderr'],
    });
    closers.push(() => example.stop());
    const address = (await example.waitFor(/listening on (http:\S+)/))[1]!;

    const client = createClient({ baseUrl: server.origin, accessToken: token, apiVersion: VERSION, rateLimit: false });
    await client.admin.createWebhook({ body: { webhook: { topic: 'fulfillment_order/released', address } } });
    const order = await server.operator('POST', `/stores/${handle}/fulfillment_orders`, { fulfillment_order: {} });
    expect(order.status).toBe(201);
    const released = await server.operator('POST', `/stores/${handle}/fulfillment_orders/${order.body.fulfillment_order.id}/release`);
    expect(released.status).toBe(200);
    await example.waitFor('verified fulfillment_order/released');
    expect(example.stdout()).toContain(`"fulfillment_order":{"id":"${order.body.fulfillment_order.id}","status":"released"}`);

    const forged = await fetch(address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-platform-hmac-sha256': '00'.repeat(32) },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    await example.waitFor('refused:');
  }, 60_000);
});
