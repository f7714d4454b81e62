import { describe, it, expect } from 'vitest';
import { DomainError, ERROR_STATUS, isDomainError, isErrorCode } from './define-errors';

describe('ERROR_STATUS', () => {
  it('maps each code to the status of decisions §4', () => {
    expect(ERROR_STATUS).toMatchObject({
      MALFORMED_JSON: 400,
      UNSUPPORTED_CONTENT_TYPE: 400,
      INVALID_PARAMETER: 400,
      INVALID_CURSOR: 400,
      RECORD_TOO_LARGE: 400,
      UNAUTHENTICATED: 401,
      TOKEN_EXPIRED: 401,
      INVALID_SIGNATURE: 401,
      INVALID_GRANT: 400,
      FORM_REFUSED: 403,
      PAYMENT_REQUIRED: 402,
      MISSING_SCOPE: 403,
      ACCESS_DENIED: 403,
      NOT_FOUND: 404,
      VERSION_NOT_SUPPORTED: 404,
      PAYLOAD_TOO_LARGE: 413,
      VALIDATION_FAILED: 422,
      STORE_CLOSED: 423,
      RATE_LIMITED: 429,
      IDEMPOTENCY_QUOTA_EXCEEDED: 429,
      INTERNAL: 500,
    });
  });
});

describe('DomainError', () => {
  it('carries its code, the status of that code and the message', () => {
    const e = new DomainError('MISSING_SCOPE', 'requires read_products');
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('MISSING_SCOPE');
    expect(e.status).toBe(403);
    expect(e.message).toBe('requires read_products');
    expect(e.name).toBe('DomainError');
  });

  it('defaults to the fixed texts of the decisions when no message is given', () => {
    expect(new DomainError('NOT_FOUND').message).toBe('Not Found');
    expect(new DomainError('RATE_LIMITED').message).toBe('Too many requests');
    expect(new DomainError('INTERNAL').message).toBe('Internal Server Error');
  });
});

describe('isDomainError', () => {
  it('recognises DomainError instances', () => {
    expect(isDomainError(new DomainError('NOT_FOUND', 'Not Found'))).toBe(true);
  });

  it('recognises the same shape from another copy of the package', () => {
    const foreign = Object.assign(new Error('Token expired'), { name: 'DomainError', code: 'TOKEN_EXPIRED', status: 401 });
    expect(isDomainError(foreign)).toBe(true);
  });

  it('rejects plain errors, mismatched statuses and non-objects', () => {
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError({ name: 'DomainError', message: 'x', code: 'NOT_FOUND', status: 500 })).toBe(false);
    expect(isDomainError({ name: 'DomainError', message: 'x', code: 'NOPE', status: 400 })).toBe(false);
    expect(isDomainError(null)).toBe(false);
    expect(isDomainError('NOT_FOUND')).toBe(false);
  });
});

describe('isErrorCode', () => {
  it('accepts table codes only, not inherited properties', () => {
    expect(isErrorCode('RATE_LIMITED')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(429)).toBe(false);
  });
});
