import { makeIssue, type Issue } from './format-issues';
import { parseNamespace } from './parse-namespace';
import type { AccessAdmin } from './validate-definition';

/**
 * The access values a definition the merchant makes may carry (docs/decisions.md, "Merchant admin").
 * The merchant is its creator and manages it (resolveAccess, `merchantMade`); its access then says
 * only what other apps may do: read and write (NONE), read (PUBLIC_READ), nothing
 * (MERCHANT_READ_WRITE). MERCHANT_READ and PRIVATE describe a merchant who may not change, or not
 * even see, the definition: no sense for one the merchant made.
 */
export const MERCHANT_MADE_ACCESS: readonly AccessAdmin[] = ['NONE', 'PUBLIC_READ', 'MERCHANT_READ_WRITE'];

/**
 * What the merchant admin may not put in a definition it creates, beyond the rules every definition
 * follows (validateDefinition): an app's reserved namespace (decisions §8.2: only that app uses it),
 * and an access value of MERCHANT_MADE_ACCESS's exclusions.
 */
export function merchantDefinitionIssues(input: { namespace?: unknown; access?: unknown }): Issue[] {
  const issues: Issue[] = [];
  if (typeof input.namespace === 'string' && parseNamespace(input.namespace).kind === 'app') {
    issues.push(
      makeIssue(
        'namespace',
        "is an app's reserved namespace ($app:x or app--{id}--x); a definition the merchant makes goes in another namespace",
      ),
    );
  }
  const admin = typeof input.access === 'object' && input.access !== null ? (input.access as { admin?: unknown }).admin : undefined;
  if (admin === 'PRIVATE' || admin === 'MERCHANT_READ') {
    issues.push(
      makeIssue(
        'access.admin',
        `${admin} would keep the merchant from managing a definition the merchant made; choose ${MERCHANT_MADE_ACCESS.join(', ')}`,
      ),
    );
  }
  return issues;
}
