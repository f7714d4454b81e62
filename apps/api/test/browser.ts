import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, installed when missing (as .ci/run installs PostgreSQL): browser downloads
 * cannot reach their hosts here, Debian's packages can. Nothing is skipped: no browser, no pass.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM} after apt-get install chromium`);
  return CHROMIUM;
}

export function launchChromium(): Promise<Browser> {
  // As root Chromium needs --no-sandbox; playwright-core drives the system executable (no download).
  return chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox'] });
}
