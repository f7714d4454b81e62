import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, type Cluster } from './cluster';

// Issue 44, 5: every metric deploy/prometheus/alerts.yml uses is one the API replicas or the
// senders of the cluster really expose on /metrics (a renamed metric would leave its alert silent
// for ever). Registered by replicas.cluster.test.ts, on its cluster.

const RULES = join(__dirname, '..', '..', '..', 'deploy', 'prometheus', 'alerts.yml');

/** PromQL's functions, aggregations and keywords the rules may use: every other name is a metric. */
const PROMQL_WORDS = new Set(
  'sum max min avg count rate irate increase delta deriv by without on ignoring group_left group_right and or unless bool offset abs clamp_min clamp_max histogram_quantile time vector scalar absent absent_over_time max_over_time min_over_time avg_over_time'.split(
    ' ',
  ),
);

/** The expressions of the rules file: `expr: ...` on one line, or `expr: |` and the lines indented under it. */
export function ruleExpressions(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)expr: (.*)$/.exec(line);
    if (!m) return;
    if (m[2]!.trim() !== '|') return void found.push(m[2]!);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j]!.trim() === '' || lines[j]!.search(/\S/) > m[1]!.length); j++) block.push(lines[j]!);
    found.push(block.join('\n'));
  });
  return found;
}

/** The metric names of a PromQL expression: strings, label matchers, ranges, label lists and numbers taken out first. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\w+/g, ' ')
    .replace(/\b\d+(\.\d+)?\w*/g, ' ');
  return [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((m) => m[0]).filter((word) => !PROMQL_WORDS.has(word));
}

/** The names a /metrics text exposes (a histogram's own name and its _bucket, _sum and _count). */
function exposed(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram' || m[2] === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(m[1]! + suffix);
  }
  return names;
}

export function describeAlertMetrics(get: () => Cluster): void {
  describe('alert rules and the real /metrics (deploy/prometheus/alerts.yml)', () => {
    it('the name parser finds the metrics of an expression and nothing else', () => {
      expect(metricNames('sum(rate(a_total{status=~"5..", x="b c"}[5m])) / sum by (route) (rate(a_total[5m])) > 0.01')).toEqual([
        'a_total',
        'a_total',
      ]);
      expect(metricNames('max by (reason) (g{s="d"}) > max by (reason) (g offset 15m)')).toEqual(['g', 'g']);
    });

    it('every metric the rules use is on the /metrics of an API replica or a sender', async () => {
      const cluster = get();
      const base = Number(cluster.env.BASE_PORT);
      // The metrics listeners without a token (PLATFORM_METRICS_PORT, PLATFORM_SENDER_METRICS_PORT).
      const api = await call(`http://127.0.0.1:${base + 31}/metrics`);
      const sender = await call(`http://127.0.0.1:${base + 21}/metrics`);
      expect(api.status, api.text).toBe(200);
      expect(sender.status, sender.text).toBe(200);
      const names = new Set([...exposed(api.text), ...exposed(sender.text)]);
      const used = new Set(ruleExpressions(readFileSync(RULES, 'utf8')).flatMap(metricNames));
      expect(used.size).toBeGreaterThanOrEqual(7);
      expect([...used].filter((name) => !names.has(name))).toEqual([]);
    });
  });
}
