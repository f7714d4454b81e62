// One owner per table (docs/architecture.md, "Tables and their owners"): every model of
// packages/db/prisma/models.prisma names its owning room with a `/// owner: <room>` line, and in
// apps/api/src only that room's files read or write the table. A file of another room may read it
// only when it is a read model and says so in its name (`*.read-model.ts`); a write to another
// room's table goes through that room's service, in the caller's transaction.
//
// What the rule sees, syntactically (no type information, so it runs with the rest of `pnpm lint`):
// - Prisma delegate calls, `<anything>.<model>.<method>(...)` (`this.db.prisma.product.findMany`,
//   `tx.inventoryItem.update`), and the relations their arguments walk (`select`, `include`,
//   `where` and nested writes under `data`: `{ variant: { select: { productId: true } } }` reads
//   product_variants);
// - SQL in string and template literals: `FROM t`, `JOIN t` read; `INSERT INTO t`, `UPDATE t`,
//   `DELETE FROM t` write (upper-case keywords, as the repositories write SQL; prose is not SQL);
// - the bulk helpers of @platform/db named with a table: insertRows, updateRows, allocateIds.
import { readFileSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';

const READS = new Set(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy']);
const WRITES = new Set([
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
]);
const BULK_HELPERS = new Set(['insertRows', 'updateRows', 'allocateIds']);
const SQL_WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?([a-z_][a-z0-9_]*)"?/g;
const SQL_READ = /\b(?:FROM|JOIN)\s+"?([a-z_][a-z0-9_]*)"?/g;

/**
 * The models of a Prisma schema: for each, its table (`@@map`, else the model's name), its owner
 * (`/// owner: room`, first word) and its relation fields (field name -> model name).
 */
export function readSchema(text) {
  const models = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = /^model\s+(\w+)\s*\{/.exec(lines[i]);
    if (!head) continue;
    const owners = [];
    for (let j = i - 1; j >= 0 && lines[j].startsWith('///'); j--) {
      const owner = /^\/\/\/\s*owner:\s*([\w-]+)/.exec(lines[j]);
      if (owner) owners.push(owner[1]);
    }
    const fields = [];
    let table = head[1];
    for (i++; i < lines.length && !/^\}/.test(lines[i]); i++) {
      const map = /^\s*@@map\("([^"]+)"\)/.exec(lines[i]);
      if (map) table = map[1];
      const field = /^\s*(\w+)\s+(\w+)(\[\])?\??/.exec(lines[i]);
      if (field) fields.push([field[1], field[2]]);
    }
    models.set(head[1], { table, owners, fields });
  }
  for (const model of models.values()) {
    model.relations = new Map(model.fields.filter(([, type]) => models.has(type)));
  }
  return models;
}

/** Problems of the schema itself: a model with no owner line, or with more than one. */
export function schemaProblems(models) {
  const problems = [];
  for (const [name, model] of models) {
    if (model.owners.length === 0) problems.push(`model ${name} (${model.table}) has no \`/// owner: <room>\` line`);
    if (model.owners.length > 1) problems.push(`model ${name} (${model.table}) names ${model.owners.length} owners: one only`);
  }
  return problems;
}

const accessorOf = (model) => model[0].toLowerCase() + model.slice(1);
const schemas = new Map();

/** The schema's models and what the rule asks of them, parsed once per text (read again for every file linted). */
function loadSchema(path) {
  const text = readFileSync(path, 'utf8');
  if (!schemas.has(text)) {
    const models = readSchema(text);
    const byAccessor = new Map([...models].map(([name, model]) => [accessorOf(name), name]));
    const ownerOfTable = new Map([...models.values()].map((m) => [m.table, m.owners[0]]));
    schemas.set(text, { models, byAccessor, ownerOfTable, problems: schemaProblems(models) });
  }
  return schemas.get(text);
}

const keyName = (property) =>
  property.type === 'Property' && !property.computed
    ? property.key.type === 'Identifier'
      ? property.key.name
      : String(property.key.value)
    : undefined;

/** The tables a delegate call's argument reaches through relations, read or written. */
function relationAccesses(models, modelName, node, writing, found) {
  if (node?.type === 'ArrayExpression') {
    for (const element of node.elements) relationAccesses(models, modelName, element, writing, found);
    return;
  }
  if (node?.type !== 'ObjectExpression') return;
  const model = models.get(modelName);
  for (const property of node.properties) {
    const key = keyName(property);
    if (key === undefined) continue;
    const target = model.relations.get(key);
    if (target !== undefined) {
      // `connect` only sets the foreign key of the row being written: it writes nothing of the target.
      const connectOnly = property.value.type === 'ObjectExpression' && property.value.properties.every((p) => keyName(p) === 'connect');
      if (!connectOnly) found.push({ table: models.get(target).table, write: writing, node: property });
      relationAccesses(models, target, property.value, writing, found);
    } else {
      relationAccesses(models, modelName, property.value, writing || key === 'data' || key === 'create' || key === 'update', found);
    }
  }
}

function sqlAccesses(text, tables, node, found) {
  const writes = new Set();
  for (const match of text.matchAll(SQL_WRITE)) {
    if (!tables.has(match[1])) continue;
    found.push({ table: match[1], write: true, node });
    if (/^DELETE/.test(match[0])) writes.add(match.index + match[0].indexOf('FROM'));
  }
  for (const match of text.matchAll(SQL_READ)) {
    if (tables.has(match[1]) && !writes.has(match.index)) found.push({ table: match[1], write: false, node });
  }
}

export const tableOwnersRule = {
  meta: {
    type: 'problem',
    docs: { description: "a room reads and writes only its own tables; another room's only in a read model, and only reads" },
    schema: [
      {
        type: 'object',
        properties: { schema: { type: 'string' }, sources: { type: 'string' } },
        required: ['schema', 'sources'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { schema, sources } = context.options[0];
    const path = relative(sources, context.filename);
    // Tests set up and look at rows of any table; the rule is about the rooms' own code.
    if (path.startsWith('..') || path === '' || /\.test\.[cm]?[jt]s$/.test(path)) return {};
    const parts = path.split(sep);
    const room = parts.length === 1 ? parts[0].replace(/\.[cm]?[jt]s$/, '') : parts[0];
    const readModel = /\.read-model\.[cm]?[jt]s$/.test(basename(context.filename));
    const { models, byAccessor, ownerOfTable, problems } = loadSchema(schema);
    const tables = new Set(ownerOfTable.keys());
    const found = [];

    const judge = ({ table, write, node }) => {
      const owner = ownerOfTable.get(table);
      if (owner === undefined || owner === room) return;
      if (!write && readModel) return;
      const message = write
        ? `${room} writes ${table}, which ${owner} owns: call ${owner}'s service with your transaction`
        : `${room} reads ${table}, which ${owner} owns: ask ${owner}'s service, or read it in a read model (*.read-model.ts) of ${room}`;
      context.report({ node, message });
    };
    const scan = (text, node) => sqlAccesses(text, tables, node, found);

    return {
      Program(node) {
        for (const problem of problems) context.report({ node, message: `models.prisma: ${problem}` });
      },
      MemberExpression(node) {
        if (node.computed || node.property.type !== 'Identifier') return;
        const method = node.property.name;
        if (!READS.has(method) && !WRITES.has(method)) return;
        const delegate = node.object;
        if (delegate.type !== 'MemberExpression' || delegate.computed || delegate.property.type !== 'Identifier') return;
        const modelName = byAccessor.get(delegate.property.name);
        if (modelName === undefined) return;
        const write = WRITES.has(method);
        found.push({ table: models.get(modelName).table, write, node: delegate.property });
        const call = node.parent;
        if (call?.type === 'CallExpression' && call.callee === node) {
          relationAccesses(models, modelName, call.arguments[0], false, found);
        }
      },
      CallExpression(node) {
        const callee = node.callee.type === 'MemberExpression' ? node.callee.property : node.callee;
        if (callee.type !== 'Identifier' || !BULK_HELPERS.has(callee.name)) return;
        for (const argument of node.arguments) {
          if (argument.type === 'Literal' && tables.has(argument.value)) found.push({ table: argument.value, write: true, node: argument });
        }
      },
      Literal(node) {
        if (typeof node.value === 'string') scan(node.value, node);
      },
      TemplateLiteral(node) {
        scan(node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' ? '), node);
      },
      'Program:exit'() {
        for (const access of found) judge(access);
      },
    };
  },
};
