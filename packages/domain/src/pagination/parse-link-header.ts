import type { PageLinks } from './build-link-header';

// decisions §6.5: the SDK reads `link` leniently (RFC 8288 shape): `rel="prev"` counts as previous,
// rel may be unquoted or carry several space-separated values, parameter names ignore case, and a URL
// may hold commas or semicolons inside its angle brackets. The first link of each kind wins.

const WHITESPACE = /\s/;

interface Cursor {
  text: string;
  at: number;
}

function skipWhitespace(c: Cursor): void {
  while (c.at < c.text.length && WHITESPACE.test(c.text.charAt(c.at))) c.at += 1;
}

/** Reads a quoted string starting at the opening quote, honouring backslash escapes. */
function readQuoted(c: Cursor): string {
  let value = '';
  c.at += 1;
  while (c.at < c.text.length) {
    const ch = c.text.charAt(c.at);
    c.at += 1;
    if (ch === '"') return value;
    if (ch === '\\' && c.at < c.text.length) {
      value += c.text.charAt(c.at);
      c.at += 1;
    } else {
      value += ch;
    }
  }
  return value;
}

/** Reads up to (not including) the first of `stops`, outside quotes. */
function readToken(c: Cursor, stops: string): string {
  const start = c.at;
  while (c.at < c.text.length && !stops.includes(c.text.charAt(c.at))) c.at += 1;
  return c.text.slice(start, c.at).trim();
}

/** Skips to just after the next comma that is outside quotes (the end of a malformed entry). */
function skipEntry(c: Cursor): void {
  while (c.at < c.text.length) {
    const ch = c.text.charAt(c.at);
    if (ch === '"') {
      readQuoted(c);
    } else {
      c.at += 1;
      if (ch === ',') return;
    }
  }
}

/** Reads `; name=value` parameters until the entry's end; returns the rel values, lower-cased. */
function readRels(c: Cursor): string[] {
  const rels: string[] = [];
  for (;;) {
    skipWhitespace(c);
    if (c.text.charAt(c.at) !== ';') return rels;
    c.at += 1;
    const name = readToken(c, '=;,').toLowerCase();
    let value = '';
    if (c.text.charAt(c.at) === '=') {
      c.at += 1;
      skipWhitespace(c);
      value = c.text.charAt(c.at) === '"' ? readQuoted(c) : readToken(c, ';,');
    }
    if (name === 'rel')
      rels.push(
        ...value
          .toLowerCase()
          .split(/\s+/)
          .filter((v) => v !== ''),
      );
  }
}

export function parseLinkHeader(header: string | null | undefined): PageLinks {
  const links: PageLinks = {};
  if (typeof header !== 'string') return links;
  const c: Cursor = { text: header, at: 0 };
  while (c.at < c.text.length) {
    skipWhitespace(c);
    const ch = c.text.charAt(c.at);
    if (ch === ',') {
      c.at += 1;
      continue;
    }
    if (ch !== '<') {
      skipEntry(c);
      continue;
    }
    const close = c.text.indexOf('>', c.at + 1);
    if (close < 0) break;
    const url = c.text.slice(c.at + 1, close).trim();
    c.at = close + 1;
    const rels = readRels(c);
    skipWhitespace(c);
    if (c.at < c.text.length && c.text.charAt(c.at) !== ',') skipEntry(c);
    for (const rel of rels) {
      if (rel === 'next' && links.next === undefined) links.next = url;
      if ((rel === 'previous' || rel === 'prev') && links.previous === undefined) links.previous = url;
    }
  }
  return links;
}
