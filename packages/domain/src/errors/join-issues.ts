/**
 * decisions §4: several problems become one message, each `field: text`, joined with `; `.
 * A message that already starts with `field: ` is not prefixed twice.
 */
export function joinIssues(issues: readonly { readonly field: string; readonly message: string }[]): string {
  return issues
    .map(({ field, message }) => (field === '' || message.startsWith(`${field}: `) ? message : `${field}: ${message}`))
    .join('; ');
}
