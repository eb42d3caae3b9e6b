// The workbench sends a command's text as Slack does with the manifest's escaping on: `@Bola` arrives
// as a mention the bot can read (`/cngn delegate @Bola …`), an e-mail address stays as typed, and a
// typed `&`, `<`, `>` arrives escaped, so what the bot reads back (unwrapLinks) is what was typed.
import { describe, expect, it } from 'vitest';
import { unwrapLinks } from '../../src/slack/runtime/links.js';
import { escapeCommandMentions } from '../../src/workbench/people.js';

describe('command text in the workbench', () => {
  it('turns @name of a workbench person into a mention, as Slack does', () => {
    expect(escapeCommandMentions('delegate @Bola until 7d max 5000')).toBe(
      'delegate <@U0BOLA|bola> until 7d max 5000',
    );
    expect(escapeCommandMentions('delegate revoke @chidi')).toBe('delegate revoke <@U0CHIDI|chidi>');
  });

  it('leaves e-mail addresses and unknown names as typed', () => {
    expect(escapeCommandMentions('deposit 5000 payer@example.com')).toBe('deposit 5000 payer@example.com');
    expect(escapeCommandMentions('delegate @nobody until 7d')).toBe('delegate @nobody until 7d');
  });

  it('escapes a typed &, < and > as Slack does', () => {
    expect(escapeCommandMentions('R&D <b>')).toBe('R&amp;D &lt;b&gt;');
    expect(escapeCommandMentions('delegate <@U0CHIDI> until 7d')).toBe('delegate &lt;@U0CHIDI&gt; until 7d');
  });

  it('lets the bot read back what was typed: typed link markup stays text, a typed entity stays as typed', () => {
    const typed = 'purpose pay <https://evil.example|bank.example> &lt; to @Bola';
    expect(unwrapLinks(escapeCommandMentions(typed))).toBe(
      'purpose pay <https://evil.example|bank.example> &lt; to <@U0BOLA|bola>',
    );
  });
});
