import { z } from 'zod';
import { FEEDBACK_STATES, MAX_FEEDBACK_MESSAGE_LENGTH, MAX_FEEDBACK_MESSAGES } from '@platform/domain/limits';
import { ZId, ZIsoTime, type AdminRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { textRules, TIME_RULES } from './rules';
import { adminRouterOptions, c, operatorRouterOptions } from './router';

/*
 * Spec "Product resource feedback", decisions §9. Request schemas give shapes only (types, required
 * and known fields); the rules (state values, time formats, message limits, staleness) are the
 * domain's (`validateFeedback`, `isStaleFeedback`), which owns those messages.
 */

/** decisions §4: the service's own words for a missing, mistyped or unknown field, never zod's defaults. */
function strictObject<T extends z.ZodRawShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z
    .object(shape, {
      errorMap: (issue, ctx) => {
        if (issue.code === 'unrecognized_keys') {
          const keys = issue.keys.map((k) => `'${k}'`).join(', ');
          return { message: `has unknown field${issue.keys.length > 1 ? 's' : ''} ${keys} (allowed: ${allowed})` };
        }
        if (issue.code === 'invalid_type') return { message: issue.received === 'undefined' ? "can't be blank" : 'must be an object' };
        return { message: ctx.defaultError };
      },
    })
    .strict();
}

const text = (what = 'a string') => z.string({ required_error: "can't be blank", invalid_type_error: `must be ${what}` });

export const ZResourceFeedbackInput = strictObject({
  state: documented(
    text().describe(
      'require_actions or success; the sample spelling requires_action is accepted and stored as require_actions (decisions §9.2).',
    ),
    { enum: [...FEEDBACK_STATES, 'requires_action'] },
  ),
  feedback_generated_at: documented(
    text().describe(
      'ISO 8601 with an offset or Z: when the feedback was built. Feedback generated before the stored one is ignored (decisions §9.4).',
    ),
    TIME_RULES,
  ),
  resource_updated_at: documented(text(), TIME_RULES)
    .nullish()
    .describe(
      "ISO 8601 with an offset or Z: the product's updated_at the feedback was built from. Feedback built from an older one than the stored feedback is ignored.",
    ),
  messages: documented(
    z.array(documented(text(), textRules(MAX_FEEDBACK_MESSAGE_LENGTH)), { invalid_type_error: 'must be an array of strings' }),
    {
      maxItems: MAX_FEEDBACK_MESSAGES,
    },
  )
    .nullish()
    .describe('At most 50 non-blank strings of at most 1,000 characters; kept only when state is require_actions (decisions §9.3).'),
});
export type ResourceFeedbackInput = z.infer<typeof ZResourceFeedbackInput>;

export const ZResourceFeedbackCreate = strictObject({ resource_feedback: ZResourceFeedbackInput });
export type ResourceFeedbackCreate = z.infer<typeof ZResourceFeedbackCreate>;

export const ZResourceFeedback = z.object({
  resource_id: ZId.describe('The product id.'),
  resource_type: z.literal('Product'),
  state: z.enum(['require_actions', 'success']),
  messages: z.array(z.string()).describe('[] unless state is require_actions.'),
  feedback_generated_at: ZIsoTime.describe('The request\'s feedback_generated_at exactly as sent (spec: "Echo of the request value").'),
  resource_updated_at: ZIsoTime.describe("The product's current updated_at (decisions §9.5)."),
  created_at: ZIsoTime.describe("When the service first received this app's feedback on this product."),
  updated_at: ZIsoTime.describe('When the stored feedback last changed (an ignored, stale feedback changes nothing).'),
});
export type ResourceFeedback = z.infer<typeof ZResourceFeedback>;

/** decisions §5.5: the resource feedback operation needs write_products (spec "Authentication" 5). */
const WRITE = { scope: 'write_products' } satisfies Omit<AdminRouteMetadata, 'auth'>;

export const resourceFeedbackContract = c.router(
  {
    createResourceFeedback: {
      method: 'POST',
      path: '/products/:product_id/resource_feedback.json',
      pathParams: z.object({ product_id: ZId }),
      body: ZResourceFeedbackCreate,
      responses: {
        201: z.object({ resource_feedback: ZResourceFeedback }).describe("Stored: this app's first feedback on the product."),
        200: z
          .object({ resource_feedback: ZResourceFeedback })
          .describe('Replaced the stored feedback, or ignored a stale one (then the stored feedback is returned unchanged).'),
      },
      summary: 'Tell the store whether a product is fine or needs action (one feedback per app and product)',
      description:
        'Same shapes in every supported version. Feedback whose feedback_generated_at, or resource_updated_at, is older than the stored ' +
        "feedback's is ignored: 200 with the stored feedback unchanged (decisions §9.4).",
      metadata: WRITE,
    },
  },
  adminRouterOptions,
);

/** The merchant admin's view: every app's feedback on one product, with the app (decisions §10). */
export const ZOperatorResourceFeedback = ZResourceFeedback.extend({
  app: z.object({ id: ZId, name: z.string() }),
});
export type OperatorResourceFeedback = z.infer<typeof ZOperatorResourceFeedback>;

export const operatorResourceFeedbackContract = c.router(
  {
    listProductResourceFeedback: {
      method: 'GET',
      path: '/stores/:handle/products/:id/resource_feedback',
      responses: { 200: z.object({ resource_feedback: z.array(ZOperatorResourceFeedback) }) },
      summary: "Every installed app's feedback on a product, ascending app id",
    },
  },
  operatorRouterOptions,
);
