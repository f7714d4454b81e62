// decisions §6.3: `<url>; rel="previous", <url>; rel="next"`, comma-separated, no header when neither.
export interface PageLinks {
  next?: string;
  previous?: string;
}

// Characters that would break the `<...>` syntax or the header itself (controls, spaces, `<>"`,
// non-ASCII) are percent-encoded; URLs we build never contain them, so this only guards.
const UNSAFE = /[^\x21-\x7E]|[<>"]/gu;

function encodeUnsafe(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    // A lone surrogate: encode the replacement character.
    return '%EF%BF%BD';
  }
}

function entry(url: string, rel: string): string {
  return `<${url.replace(UNSAFE, encodeUnsafe)}>; rel="${rel}"`;
}

export function buildLinkHeader(links: PageLinks): string | undefined {
  const entries: string[] = [];
  if (links.previous !== undefined) entries.push(entry(links.previous, 'previous'));
  if (links.next !== undefined) entries.push(entry(links.next, 'next'));
  return entries.length === 0 ? undefined : entries.join(', ');
}
