// The version is the package's own, put in by the bundler from package.json: written once.
import { version } from '../package.json';

export const SDK_VERSION: string = version;

/**
 * `User-Agent` of every request the SDK sends: `platform-sdk/<version> node/<version>`, so the
 * platform team can tell SDK versions (and Node versions) apart in their logs. On runtimes other
 * than Node (and those that say they are, as Bun does) the SDK part alone.
 */
export function userAgent(): string {
  const node = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node;
  return typeof node === 'string' ? `platform-sdk/${SDK_VERSION} node/${node}` : `platform-sdk/${SDK_VERSION}`;
}
