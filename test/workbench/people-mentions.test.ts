// The workbench sends a command's text as Slack does with the manifest's escaping on: `@Bola` arrives
// as a mention the bot can read (`/cngn delegate @Bola …`), and an e-mail address stays as typed.
import { describe, expect, it } from 'vitest';
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
});
