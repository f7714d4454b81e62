import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `apps/api/assets/`, the same from `src/merchant` (tests) and `dist/merchant` (built). */
const ASSETS_DIR = join(__dirname, '..', '..', 'assets');

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

export interface Asset {
  body: Buffer;
  contentType: string;
}

/** Every file the merchant pages load, read once: no CDN, no build step (add a file to assets/ and its name here). */
export function loadAssets(names: readonly string[] = ['admin.css', 'admin.js', 'oauth-web.js']): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of names) {
    const extension = name.slice(name.lastIndexOf('.') + 1);
    assets.set(name, { body: readFileSync(join(ASSETS_DIR, name)), contentType: TYPES[extension] ?? 'application/octet-stream' });
  }
  return assets;
}
