// The versions entry has no Node-only imports (calendar arithmetic only).
import { isReleaseVersion, isWellFormedVersion, SUPPORTED_VERSION_COUNT, supportedVersions } from '@platform/domain/versions';

/** decisions §2.2: a release stays in the window of the 8 newest for 8 quarters, i.e. 24 months. */
const WINDOW_MONTHS = SUPPORTED_VERSION_COUNT * 3;
/** Warn this long before the pinned version leaves the window. */
export const DEPRECATION_NOTICE_DAYS = 90;

export interface VersionStatus {
  apiVersion: string;
  /** The day the version stops being served as itself (the oldest supported version serves it after that, decisions §2.4). */
  retiresOn: string;
  daysLeft: number;
  /** The newest released version on `now`: what new code should pin (spec, Versioning rule 3). */
  latest: string;
  supported: boolean;
}

/** Where `apiVersion` stands in the window on `now` (decisions §2). Throws for a version that is not a quarterly release. */
export function versionStatus(apiVersion: string, now: Date): VersionStatus {
  if (!isWellFormedVersion(apiVersion) || !isReleaseVersion(apiVersion)) {
    throw new TypeError(
      `apiVersion '${apiVersion}' is not a release: versions are v + the 1st of March, June, September or December, e.g. v20260901 (decisions §2.1)`,
    );
  }
  const year = Number(apiVersion.slice(1, 5));
  const month = Number(apiVersion.slice(5, 7));
  const retires = new Date(Date.UTC(year, month - 1 + WINDOW_MONTHS, 1));
  const supported = supportedVersions(now);
  return {
    apiVersion,
    retiresOn: retires.toISOString().slice(0, 10),
    daysLeft: Math.ceil((retires.getTime() - now.getTime()) / 86_400_000),
    latest: supported[0]!,
    supported: supported.includes(apiVersion),
  };
}

/** The deprecation message for `apiVersion` on `now`, or undefined when it stays in the window for more than 90 days. */
export function deprecationNotice(apiVersion: string, now: Date): { retiresOn: string; message: string } | undefined {
  const status = versionStatus(apiVersion, now);
  if (status.daysLeft > DEPRECATION_NOTICE_DAYS) return undefined;
  const message =
    status.daysLeft <= 0
      ? `API version ${apiVersion} left the supported window on ${status.retiresOn}: the oldest supported version serves it now. Move to ${status.latest}.`
      : `API version ${apiVersion} leaves the supported window on ${status.retiresOn} (in ${status.daysLeft} days). Move to ${status.latest}.`;
  return { retiresOn: status.retiresOn, message };
}
