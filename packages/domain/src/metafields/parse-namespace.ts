// decisions §8.2: app-reserved namespaces and their two spellings.

export const APP_NAMESPACE_PREFIX = '$app:';

/** The stored spelling of app `id`'s reserved namespace `x`. The name may be empty here: it is refused by the name rules, not read as a shared namespace. */
const STORED_APP_NAMESPACE = /^app--([0-9]+)--(.*)$/s;

/**
 * A namespace as the rules read it (decisions §8.2). `$app:x` is the calling app's reserved
 * namespace `x` (appId null: whoever calls); `app--{id}--x`, its stored spelling, is app {id}'s
 * reserved namespace `x`. Both spellings mean the same namespace: the same name rules apply to `x`,
 * and the same app owns it. Anything else is a shared namespace.
 */
export type NamespaceParts =
  | { readonly kind: 'shared'; readonly name: string }
  | { readonly kind: 'app'; readonly appId: string | null; readonly name: string };

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
