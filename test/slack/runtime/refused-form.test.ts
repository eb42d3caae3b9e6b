// Where a refused form's error goes: its first field on screen (the first input block of the view with a
// value in its state), not whichever block id Slack's state happens to list first; with no blocks to go
// by, the first block id of the state, as before.
import { describe, expect, it } from 'vitest';
import {
  firstFormField,
  REFUSED_FORM_TEXT,
  refusedFormAnswer,
} from '../../../src/slack/runtime/refused-form.js';
import { textValue, viewSubmissionPayload } from '../../support/slack-requests.js';

const input = (blockId: string) => ({
  type: 'input',
  block_id: blockId,
  element: { type: 'plain_text_input' },
});

describe('a refused form’s first field', () => {
  it('is the first input block on screen, whatever order the state lists its values in', () => {
    const body = viewSubmissionPayload({
      callbackId: 'probe.form',
      values: { 'probe.note': { note: textValue('x') }, 'probe.amount': { amount: textValue('1500') } },
    });
    const view = body.view as Record<string, unknown>;
    view.blocks = [{ type: 'section', block_id: 'probe.intro' }, input('probe.amount'), input('probe.note')];
    expect(refusedFormAnswer(body)).toEqual({
      response_action: 'errors',
      errors: { 'probe.amount': REFUSED_FORM_TEXT },
    });
  });

  it('skips an input block with no value in the state, and falls back to the state without blocks', () => {
    const values = { 'probe.note': { note: textValue('x') } };
    expect(firstFormField({ blocks: [input('probe.gone'), input('probe.note')], state: { values } })).toBe(
      'probe.note',
    );
    expect(firstFormField({ blocks: 'not blocks', state: { values } })).toBe('probe.note');
    expect(firstFormField({ state: { values: {} } })).toBeUndefined();
    expect(firstFormField(null)).toBeUndefined();
  });
});
