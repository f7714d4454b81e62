import { pathId } from '../http/ids';
import { Injectable } from '@nestjs/common';
import {
  DomainError,
  formatInZone,
  joinIssues,
  METAOBJECT_HANDLE_LENGTH,
  METAOBJECT_NAME_LENGTH,
  METAOBJECT_TYPE_LENGTH,
  NAME_CHARS,
} from '@platform/domain';
import { ClockService } from '../core/clock.service';
import { isConflict } from '../core/prisma-errors';
import { StoresService } from '../stores/stores.service';
import { MetaobjectsRepository } from './metaobjects.repository';

// Where the documents are silent (docs/metafield-definitions.md): a type is 3-255 letters, digits,
// `-` and `_` (like a namespace), a handle 1-255 of the same; names 1-255 and not blank.

type Issue = { field: string; message: string };

function checkText(field: string, value: string, min: number, max: number, issues: Issue[], chars?: RegExp): void {
  const length = [...value].length;
  if (value.trim() === '') issues.push({ field, message: "can't be blank" });
  else if (length < min) issues.push({ field, message: `is too short (minimum is ${min} characters)` });
  else if (length > max) issues.push({ field, message: `is too long (maximum is ${max} characters)` });
  if (chars && value !== '' && !chars.test(value))
    issues.push({ field, message: 'can only contain letters, digits, hyphens and underscores' });
}

@Injectable()
export class MetaobjectsService {
  constructor(
    private readonly repository: MetaobjectsRepository,
    private readonly stores: StoresService,
    private readonly clock: ClockService,
  ) {}

  async createDefinition(handle: string, input: { type: string; name: string }) {
    const store = await this.stores.get(handle);
    const issues: Issue[] = [];
    checkText('type', input.type, METAOBJECT_TYPE_LENGTH.min, METAOBJECT_TYPE_LENGTH.max, issues, NAME_CHARS);
    checkText('name', input.name, METAOBJECT_NAME_LENGTH.min, METAOBJECT_NAME_LENGTH.max, issues);
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    try {
      const row = await this.repository.createDefinition(store.id, input.type, input.name, this.clock.now());
      const tz = store.ianaTimezone;
      return {
        id: row.id.toString(),
        type: row.type,
        name: row.name,
        admin_graphql_api_id: `gid://platform/MetaobjectDefinition/${row.id.toString()}`,
        created_at: formatInZone(row.createdAt, tz),
        updated_at: formatInZone(row.updatedAt, tz),
      };
    } catch (error) {
      if (isConflict(error, 'unique')) throw new DomainError('VALIDATION_FAILED', `type: has already been taken ('${input.type}')`);
      throw error;
    }
  }

  async createMetaobject(handle: string, rawDefinitionId: string, input: { handle: string }) {
    const store = await this.stores.get(handle);
    const definition = await this.repository.findDefinition(store.id, pathId(rawDefinitionId));
    if (!definition) throw new DomainError('NOT_FOUND', `Metaobject definition '${rawDefinitionId}' not found`);
    const issues: Issue[] = [];
    checkText('handle', input.handle, METAOBJECT_HANDLE_LENGTH.min, METAOBJECT_HANDLE_LENGTH.max, issues, NAME_CHARS);
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    try {
      const row = await this.repository.createMetaobject(store.id, definition.id, input.handle, this.clock.now());
      const tz = store.ianaTimezone;
      return {
        id: row.id.toString(),
        definition_id: definition.id.toString(),
        type: definition.type,
        handle: row.handle,
        admin_graphql_api_id: `gid://platform/Metaobject/${row.id.toString()}`,
        created_at: formatInZone(row.createdAt, tz),
        updated_at: formatInZone(row.updatedAt, tz),
      };
    } catch (error) {
      if (isConflict(error, 'unique')) {
        throw new DomainError(
          'VALIDATION_FAILED',
          `handle: has already been taken ('${input.handle}' in metaobject definition ${definition.id.toString()})`,
        );
      }
      throw error;
    }
  }
}
