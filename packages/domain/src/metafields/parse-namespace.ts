// decisions §8.2: app-reserved namespaces and their two spellings.

export const APP_NAMESPACE_PREFIX = '$app:';

/** The stored spelling of app `id`'s reserved namespace `x`. The name may be empty here: it is refused by the name rules, not read as a shared namespace. */
const STORED_APP_NAMESPACE = /^app--([1-9][0-9]*)--(.*)$/s;
/**
 * What reads as an app namespace to a person (any letter case; spelled without the `i` flag so the
 * OpenAPI document can state it as a pattern): `App--3--x`, `app---3--x`, `app--03--x`, `app--x--y`,
 * `app-3--x` (the `app--` prefix, or an id followed by `--`). Shared names such as `app-2024-promo`
 * or `app-1-x` are valid namespaces (decisions §8.2) and stay ordinary.
 */
export const APP_NAMESPACE_LOOKALIKE = /^[Aa][Pp][Pp](?:--|-+[0-9]+--)/;

/**
 * A namespace as the rules read it (decisions §8.2). `$app:x` is the calling app's reserved
 * namespace `x` (appId null: whoever calls); `app--{id}--x`, its stored spelling, is app {id}'s
 * reserved namespace `x`. Both spellings mean the same namespace: the same name rules apply to `x`,
 * and the same app owns it. Anything else is a shared namespace.
 */
export type NamespaceParts =
  { readonly kind: 'shared'; readonly name: string } | { readonly kind: 'app'; readonly appId: string | null; readonly name: string };

export function parseNamespace(namespace: string): NamespaceParts {
  if (namespace.startsWith(APP_NAMESPACE_PREFIX)) return { kind: 'app', appId: null, name: namespace.slice(APP_NAMESPACE_PREFIX.length) };
  const stored = STORED_APP_NAMESPACE.exec(namespace);
  if (stored) return { kind: 'app', appId: stored[1]!, name: stored[2]! };
  return { kind: 'shared', name: namespace };
}

/** `$app:x` as stored for app `appId`: `app--{appId}--x`; other namespaces (the stored spelling too) unchanged. */
export function expandAppNamespace(namespace: string, appId: string): string {
  return namespace.startsWith(APP_NAMESPACE_PREFIX) ? `app--${appId}--${namespace.slice(APP_NAMESPACE_PREFIX.length)}` : namespace;
}

/** The app a stored namespace is reserved to (`app--{id}--x`), or null for a shared namespace. */
export function appIdOfNamespace(namespace: string): string | null {
  return STORED_APP_NAMESPACE.exec(namespace)?.[1] ?? null;
}

/**
 * A namespace that looks like an app's reserved namespace but is not its canonical spelling
 * (`App--3--x`, `app---3--x`, `app--03--x`): refused, so no shared namespace can pass for an app's in
 * the merchant admin or in a listing (issue 8, finding 6).
 */
export function isAppNamespaceLookalike(namespace: string): boolean {
  return APP_NAMESPACE_LOOKALIKE.test(namespace) && !STORED_APP_NAMESPACE.test(namespace);
}
