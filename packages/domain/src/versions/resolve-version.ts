import { isWellFormedVersion, supportedVersions } from './list-releases';

export type VersionResolution = { ok: true; requested: string; served: string } | { ok: false; message: string };

/**
 * decisions §2.3-2.4: a supported version serves itself; a well-formed version older than the window
 * (retired) is served by the oldest supported one; anything else (malformed, not yet released, or a
 * date inside the window that is not a release) is not supported.
 */
export function resolveVersion(requested: string, now: Date): VersionResolution {
  const supported = supportedVersions(now);
  if (supported.includes(requested)) return { ok: true, requested, served: requested };
  const oldest = supported[supported.length - 1];
  // Well-formed versions have a fixed width, so string order is date order.
  if (oldest !== undefined && isWellFormedVersion(requested) && requested < oldest) {
    return { ok: true, requested, served: oldest };
  }
  return { ok: false, message: `API version '${requested}' is not supported. Supported versions: ${supported.join(', ')}` };
}
