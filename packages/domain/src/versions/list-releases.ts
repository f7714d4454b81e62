import { daysInMonth } from '../time/count-days';

// decisions §2.1: a version is `v` + a real calendar date; releases fall on the 1st of March, June,
// September and December and count as released once the service clock's UTC date reaches them.
const VERSION_PATTERN = /^v(\d{4})(\d{2})(\d{2})$/;
const RELEASE_MONTHS = [3, 6, 9, 12] as const;

/** decisions §2.2: how many released versions are served at a time. */
export const SUPPORTED_VERSION_COUNT = 8;

/** `v` + `YYYYMMDD` naming a date that exists in the (proleptic Gregorian) calendar. */
export function isWellFormedVersion(v: string): boolean {
  const m = VERSION_PATTERN.exec(v);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** A well-formed version whose date is a quarterly release date (released or not). */
export function isReleaseVersion(v: string): boolean {
  if (!isWellFormedVersion(v)) return false;
  const month = Number(v.slice(5, 7));
  return v.endsWith('01') && (RELEASE_MONTHS as readonly number[]).includes(month);
}

function versionOf(year: number, month: number): string {
  return `v${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}01`;
}

function assertValidDate(now: Date): void {
  if (Number.isNaN(now.getTime())) throw new RangeError('versions: the clock returned an invalid date');
}

/** The `count` newest released versions' dates (UTC midnight), newest first. */
export function releaseDates(now: Date, count: number = SUPPORTED_VERSION_COUNT): Date[] {
  assertValidDate(now);
  let year = now.getUTCFullYear();
  // The newest release month not after the current month; every release is on the 1st, so the
  // current month's release (if any) has been reached whatever the day.
  let month = Math.floor((now.getUTCMonth() + 1) / 3) * 3;
  if (month === 0) {
    year -= 1;
    month = 12;
  }
  const dates: Date[] = [];
  for (let i = 0; i < count; i += 1) {
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, 1);
    dates.push(d);
    month -= 3;
    if (month === 0) {
      year -= 1;
      month = 12;
    }
  }
  return dates;
}

/** decisions §2.2: the 8 newest released versions, newest first. */
export function supportedVersions(now: Date): string[] {
  return releaseDates(now).map((d) => versionOf(d.getUTCFullYear(), d.getUTCMonth() + 1));
}

/** decisions §2.2: the newest released version. */
export function latestStableVersion(now: Date): string {
  const [latest] = supportedVersions(now);
  if (latest === undefined) throw new RangeError('versions: no released version');
  return latest;
}
