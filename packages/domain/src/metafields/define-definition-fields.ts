// decisions §8.1-§8.3: the fields of a metafield definition and their bounds. Constants only (no
// imports), so the contract states them in the OpenAPI document from this one source.

export const OWNER_RESOURCES = ['products', 'variants', 'collections', 'customers', 'orders', 'shop'] as const;
export type OwnerResource = (typeof OWNER_RESOURCES)[number];

export const ACCESS_ADMIN_VALUES = ['MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PUBLIC_READ', 'PRIVATE', 'NONE'] as const;
export type AccessAdmin = (typeof ACCESS_ADMIN_VALUES)[number];

export const NAMESPACE_LENGTH = { min: 3, max: 255 } as const;
export const KEY_LENGTH = { min: 3, max: 64 } as const;
export const NAME_MAX_LENGTH = 255;
export const DESCRIPTION_MAX_LENGTH = 255;

/** What a namespace's name and a key are made of: letters, digits, `-` and `_`. */
export const NAME_CHARS = /^[A-Za-z0-9_-]+$/;

/** decisions §8.14: a metaobject definition's type, its name, and a metaobject's handle. */
export const METAOBJECT_TYPE_LENGTH = { min: 3, max: 255 } as const;
export const METAOBJECT_NAME_LENGTH = { min: 1, max: 255 } as const;
export const METAOBJECT_HANDLE_LENGTH = { min: 1, max: 255 } as const;
