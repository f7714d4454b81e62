import { APP_NAMESPACE_PREFIX, type AccessAdmin, type NormalizedDefinition } from './validate-definition';

// decisions §8.2 and §8.7: app-reserved namespaces and the behaviour of an unset access.

const STORED_APP_NAMESPACE = /^app--([0-9]+)--(.+)$/;

/** `$app:x` as stored for app `appId`: `app--{appId}--x`; other namespaces unchanged. */
export function expandAppNamespace(namespace: string, appId: string): string {
  return namespace.startsWith(APP_NAMESPACE_PREFIX) ? `app--${appId}--${namespace.slice(APP_NAMESPACE_PREFIX.length)}` : namespace;
}

/** The app a stored namespace is reserved to (`app--{id}--x`), or null for a shared namespace. */
export function appIdOfNamespace(namespace: string): string | null {
  return STORED_APP_NAMESPACE.exec(namespace)?.[1] ?? null;
}

/** How a definition behaves: an unset access acts as NONE, or MERCHANT_READ_WRITE in an app namespace. */
export function effectiveAccess(definition: Pick<NormalizedDefinition, 'access' | 'namespace'>): AccessAdmin {
  if (definition.access !== null) return definition.access.admin;
  const appNamespace = definition.namespace.startsWith(APP_NAMESPACE_PREFIX) || appIdOfNamespace(definition.namespace) !== null;
  return appNamespace ? 'MERCHANT_READ_WRITE' : 'NONE';
}
