import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 44, 5: the alert rules shipped in deploy/prometheus are valid Prometheus rules, and each
// alert fires on the series of alerts.test.yml meant to fire it and on no other. promtool comes
// with Debian's `prometheus` package (.ci/run installs it when missing). The metric names the
// rules use are checked against the real /metrics in the cluster suite (cluster-test/alert-metrics.ts).
const RULES = join(__dirname, '..', '..', '..', 'deploy', 'prometheus');
const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const missing = promtool.error !== undefined;
if (missing) console.warn('alert-rules.test.ts: promtool is missing (apt-get install prometheus): the alert rules are NOT checked here.');

describe.skipIf(missing)('alert rules (deploy/prometheus/alerts.yml)', () => {
  const run = (...args: string[]) => spawnSync('promtool', args, { cwd: RULES, encoding: 'utf8', timeout: 60_000 });

  it('promtool check rules: valid, 8 rules', () => {
    const check = run('check', 'rules', 'alerts.yml');
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/SUCCESS: 8 rules found/);
  });

  it('promtool test rules: every alert fires on its series and stays quiet on the others', () => {
    const test = run('test', 'rules', 'alerts.test.yml');
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/SUCCESS/);
  });

  it('alerts.test.yml has, for every alert, a case where it fires and one where it does not', () => {
    const alerts = [...readFileSync(join(RULES, 'alerts.yml'), 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]);
    expect(alerts).toHaveLength(8);
    const cases = [...readFileSync(join(RULES, 'alerts.test.yml'), 'utf8').matchAll(/alertname: (\w+)\n\s*exp_alerts:(.*)/g)];
    for (const alert of alerts) {
      const own = cases.filter((m) => m[1] === alert);
      expect(
        own.some((m) => m[2]!.trim() === '[]'),
        `${alert}: a case where it does not fire`,
      ).toBe(true);
      expect(
        own.some((m) => m[2]!.trim() === ''),
        `${alert}: a case where it fires`,
      ).toBe(true);
    }
  });
});
