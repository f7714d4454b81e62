import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, type Html, type Section } from '../merchant-page';

export interface Confirmation {
  title: string;
  section: Section;
  /** What happens, in words, before the merchant decides. */
  paragraphs: (Html | string)[];
  /** Where the form posts (the same path as this page). */
  action: string;
  button: string;
  /** Extra fields (an option of the action). */
  fields?: Html;
  /** Where Cancel leads. */
  back: string;
}

/**
 * The confirmation of a destructive action (issue 18): a page of its own, reached by a link, whose
 * POST form (with the CSRF token) does it. Works with the keyboard alone and without scripts.
 */
export function confirmPage(ctx: MerchantContext, c: Confirmation): Html {
  return adminPage(ctx, {
    title: c.title,
    section: c.section,
    body: html`<section class="card"><h1>${c.title}</h1>
${c.paragraphs.map((p) => html`<p>${p}</p>`)}
<form method="post" action="${c.action}">${formToken(ctx)}${c.fields ?? ''}
<div class="actions"><button type="submit" class="danger">${c.button}</button><a class="button" href="${c.back}">Cancel</a></div>
</form></section>`,
  });
}
