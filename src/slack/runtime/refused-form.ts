// What a modal's submission refused before Bolt reads it (the envelope check, over HTTP and Socket Mode
// alike) is answered: never an empty ack, which closes the form as a filed one does. The error goes on
// the form's first field, where the person is looking, as the access gate puts its refusals; a form
// with no field gets a small notice pushed over it. Either way the form stays open and nothing is
// filed. Only fixed text: nothing of the refused body is shown.
import type { View } from '@slack/types';

export const REFUSED_FORM_TEXT =
  'Not filed: cngn-desk could not read this form. Try again; if it happens again, ask an admin to look at the bot’s log.';

/** Slack's limit on a block id: a longer key is not one of the form's fields. */
const BLOCK_ID_MAX = 255;

export type RefusedFormAnswer =
  | { response_action: 'errors'; errors: Record<string, string> }
  | { response_action: 'push'; view: View };

export function refusedFormView(): View {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Not filed' },
    close: { type: 'plain_text', text: 'Back' },
    blocks: [{ type: 'section', text: { type: 'plain_text', text: REFUSED_FORM_TEXT } }],
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The block id of a form's first field, where a refusal's error goes: the first `input` block of the
 * view (its order on screen) that has a value in its state, else the first block id of its state.
 */
export function firstFormField(view: unknown): string | undefined {
  if (!isObject(view)) return undefined;
  const state = view.state;
  const values = isObject(state) && isObject(state.values) ? state.values : {};
  const blocks = Array.isArray(view.blocks) ? view.blocks : [];
  for (const block of blocks) {
    if (!isObject(block) || block.type !== 'input' || typeof block.block_id !== 'string') continue;
    if (Object.hasOwn(values, block.block_id)) return block.block_id;
  }
  return Object.keys(values)[0];
}

/**
 * The answer to a refused body that is a modal's submission (its view an object: a form is open),
 * read leniently since it failed the check; undefined for any other body (acked or refused as before).
 */
export function refusedFormAnswer(body: unknown): RefusedFormAnswer | undefined {
  if (!isObject(body) || body.type !== 'view_submission' || !isObject(body.view)) return undefined;
  const field = firstFormField(body.view);
  if (field && field.length <= BLOCK_ID_MAX) {
    return { response_action: 'errors', errors: { [field]: REFUSED_FORM_TEXT } };
  }
  return { response_action: 'push', view: refusedFormView() };
}
