import { describe, expect, it } from 'vitest';
import { adminContract, contract } from './contract';
import { generateOpenApiDocument } from './openapi';
import {
  operatorResourceFeedbackContract,
  resourceFeedbackContract,
  ZResourceFeedback,
  ZResourceFeedbackCreate,
} from './resource-feedback.contract';

const issues = (body: unknown) => {
  const r = ZResourceFeedbackCreate.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const valid = { state: 'success', feedback_generated_at: '2026-11-22T12:05:01+08:00' };

describe('product resource feedback route (spec "Product resource feedback")', () => {
  it('is POST /products/{product_id}/resource_feedback.json on the Admin API, needing write_products (decisions §5.5)', () => {
    const route = resourceFeedbackContract.createResourceFeedback;
    expect(`${route.method} ${route.path}`).toBe('POST /admin/openapi/:version/products/:product_id/resource_feedback.json');
    expect(route.metadata).toEqual({ auth: 'app', scope: 'write_products' });
    expect(adminContract).toHaveProperty('createResourceFeedback');
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['200', '201', '403', '404', '422']));
  });

  it('the operator view is on the operator API (decisions §10)', () => {
    const route = operatorResourceFeedbackContract.listProductResourceFeedback;
    expect(`${route.method} ${route.path}`).toBe('GET /platform/v1/stores/:handle/products/:id/resource_feedback');
    expect(route.metadata).toEqual({ auth: 'operator' });
    expect(contract.operator).toHaveProperty('listProductResourceFeedback');
  });

  it('appears in the OpenAPI document with its request and response fields', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated document is read field by field
    const doc = generateOpenApiDocument() as { paths: Record<string, Record<string, any>> };
    const op = doc.paths['/admin/openapi/{version}/products/{product_id}/resource_feedback.json']?.['post'];
    expect(op?.operationId).toBe('createResourceFeedback');
    const request = op?.requestBody?.content?.['application/json']?.schema?.properties?.resource_feedback;
    expect(Object.keys(request?.properties ?? {})).toEqual(['state', 'feedback_generated_at', 'resource_updated_at', 'messages']);
    expect(request?.required).toEqual(['state', 'feedback_generated_at']);
    const response = op?.responses?.['201']?.content?.['application/json']?.schema?.properties?.resource_feedback;
    expect(Object.keys(response?.properties ?? {})).toEqual(Object.keys(ZResourceFeedback.shape));
    expect(doc.paths['/platform/v1/stores/{handle}/products/{id}/resource_feedback']?.['get']?.operationId).toBe(
      'listProductResourceFeedback',
    );
  });
});

describe('request shape', () => {
  it('takes state and feedback_generated_at, optionally resource_updated_at and messages (null counts as absent)', () => {
    expect(issues({ resource_feedback: valid })).toEqual([]);
    expect(issues({ resource_feedback: { ...valid, resource_updated_at: null, messages: null } })).toEqual([]);
    expect(issues({ resource_feedback: { ...valid, resource_updated_at: '2026-11-22T12:00:00Z', messages: ['a', 'b'] } })).toEqual([]);
  });

  it("answers in the service's words: missing, mistyped and unknown fields (decisions §4)", () => {
    expect(issues({ resource_feedback: {} })).toEqual([
      "resource_feedback.state: can't be blank",
      "resource_feedback.feedback_generated_at: can't be blank",
    ]);
    expect(issues({ resource_feedback: { ...valid, state: 1, messages: ['ok', 2] } })).toEqual([
      'resource_feedback.state: must be a string',
      'resource_feedback.messages.1: must be a string',
    ]);
    expect(issues({ resource_feedback: { ...valid, messages: 'fix it' } })).toEqual([
      'resource_feedback.messages: must be an array of strings',
    ]);
    expect(issues({ resource_feedback: { ...valid, stat: 'x', resource_id: '1' } })).toEqual([
      "resource_feedback: has unknown fields 'stat', 'resource_id' (allowed: state, feedback_generated_at, resource_updated_at, messages)",
    ]);
    expect(issues({ resource_feedback: valid, extra: 1 })).toEqual([": has unknown field 'extra' (allowed: resource_feedback)"]);
    expect(issues({})).toEqual(["resource_feedback: can't be blank"]);
    expect(issues({ resource_feedback: [] })).toEqual(['resource_feedback: must be an object']);
    expect(issues([])).toEqual([': must be an object']);
    expect(issues(null)).toEqual([': must be an object']);
  });
});
