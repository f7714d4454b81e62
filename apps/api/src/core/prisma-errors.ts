/** Prisma's known request errors by code (P2002 unique), without importing either generated client. */
export function prismaCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof (error as { code: unknown }).code === 'string') {
    const code = (error as { code: string }).code;
    return /^P\d{4}$/.test(code) ? code : undefined;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown): boolean => prismaCode(error) === 'P2002';
