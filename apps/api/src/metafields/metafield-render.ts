import { formatInZone } from '@platform/domain';
import type { DefinitionRow } from './metafield-rules';
import { OWNER_RESOURCE, type MetafieldRow } from './metafields.repository';

/**
 * A value as the Admin API answers it (decisions §8.9). `owner_resource` is `products`, the word
 * the bulk set and definitions use (decisions §8.1), so it round-trips; `description` is the
 * definition's (values have none of their own).
 */
export function renderMetafield(row: MetafieldRow, definition: Pick<DefinitionRow, 'description'> | undefined, timeZone: string) {
  return {
    id: row.id.toString(),
    namespace: row.namespace,
    key: row.key,
    value: row.value,
    type: row.type,
    description: definition?.description ? definition.description : null,
    owner_id: row.ownerId.toString(),
    owner_resource: OWNER_RESOURCE as 'products',
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
    admin_graphql_api_id: `gid://platform/Metafield/${row.id.toString()}`,
  };
}

export type RenderedMetafield = ReturnType<typeof renderMetafield>;

/**
 * The operator's view adds the re-check verdict (decisions §8.12). A value without a definition
 * has no rules, so it is valid whatever an earlier verdict said (its definition was deleted).
 */
export function renderOperatorMetafield(row: MetafieldRow, definition: Pick<DefinitionRow, 'description'> | undefined, timeZone: string) {
  const valid = row.definitionId === null || row.valid;
  return {
    ...renderMetafield(row, definition, timeZone),
    definition_id: row.definitionId === null ? null : row.definitionId.toString(),
    valid,
    invalid_reasons: valid ? [] : reasonsOf(row.invalidReasons),
  };
}

/** The re-check's reasons a value is invalid, as stored (JSON); anything unreadable is no reason. */
export function reasonsOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

/** decisions §6.4: only the named top-level fields, `id` always. */
export function pickFields<T extends { id: string }>(record: T, fields: ReadonlySet<string> | undefined): Partial<T> & { id: string } {
  if (fields === undefined) return record;
  const out: Record<string, unknown> = { id: record.id };
  for (const [name, value] of Object.entries(record)) if (fields.has(name)) out[name] = value;
  return out as Partial<T> & { id: string };
}
