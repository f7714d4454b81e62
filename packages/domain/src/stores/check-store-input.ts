// decisions §12.9: what the operator may store as a store's name and e-mail addresses. Apps read them
// back from shop.json (decisions §3.6) and put them in mails and pages, so they are checked on the way
// in. The patterns are also the OpenAPI document's (packages/contract): one source for both.

/** C0 and C1 control characters, DEL included (Unicode category Cc). */
const CONTROL = '\\u0000-\\u001F\\u007F-\\u009F';

/** A store name: no control character, and not blank (something besides white space). */
export const STORE_NAME = new RegExp(`^[^${CONTROL}]*[^\\s${CONTROL}][^${CONTROL}]*$`);

/**
 * An e-mail address: a dot-atom local part (RFC 5322 §3.4.1) at a host name of letters, digits and
 * inner hyphens, labels of at most 63 characters. No quoted local parts, comments or address literals:
 * mail software agrees on this subset, and apps receive nothing they must unquote.
 */
export const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** RFC 5321 §4.5.3.1.3: a path holds at most 256 octets, its angle brackets included. */
export const EMAIL_MAX_LENGTH = 254;

export interface StoreInputIssue {
  field: string;
  message: string;
}

/** The problem of a store name, or undefined. */
export function checkStoreName(name: string): string | undefined {
  if (name.trim() === '') return "can't be blank";
  if (!STORE_NAME.test(name)) return 'must not hold control characters (such as line breaks or tabs)';
  return undefined;
}

/** The problem of an e-mail address, or undefined. */
export function checkEmail(email: string): string | undefined {
  if (email.length > EMAIL_MAX_LENGTH) return `is too long (maximum is ${EMAIL_MAX_LENGTH} characters)`;
  if (!EMAIL.test(email)) return 'must be an e-mail address such as owner@example.com';
  return undefined;
}

/** Every problem of the name and e-mail fields given (absent fields are not checked). */
export function checkStoreInput(input: { name?: string; email?: string | null; customer_email?: string | null }): StoreInputIssue[] {
  const issues: StoreInputIssue[] = [];
  const name = input.name === undefined ? undefined : checkStoreName(input.name);
  if (name) issues.push({ field: 'name', message: name });
  for (const field of ['email', 'customer_email'] as const) {
    const value = input[field];
    const problem = typeof value === 'string' ? checkEmail(value) : undefined;
    if (problem) issues.push({ field, message: problem });
  }
  return issues;
}
