import { Gauge, type Registry } from 'prom-client';
import type { Db } from './client';

/**
 * decisions §12.3, issue 15: the database pool's use, one series per state (`total` open, `idle`,
 * `waiting` requests queued for a connection), read when scraped; named alike in both programs.
 * Nothing on SQLite, which has no pool.
 */
export function registerPoolMetrics(registry: Registry, db: Db): void {
  if (db.poolStats() === undefined) return;
  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL pool of this process: connections open (total), idle, and requests waiting for one',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = db.poolStats();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}
