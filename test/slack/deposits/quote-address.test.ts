// The quote form checks the destination address by the rules of the destination network, so a
// non-EVM network in the list can be quoted to, and a wrong-family address is refused inline.
import { describe, expect, it } from 'vitest';
import { quoteModal } from '../../../src/slack/deposits/blocks.js';
import { parseQuote, readQuoteMetadata } from '../../../src/slack/deposits/views.js';
import type { ViewValues } from '../../../src/slack/ui/view-values.js';

const networks = [
  { id: 'n-base', name: 'Base', shortName: 'base' },
  { id: 'n-sol', name: 'Solana', shortName: 'sol' },
  { id: 'n-tron', name: 'Tron', shortName: 'tron' },
];
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';

const form = (destination: string, address: string, origin = 'n-base'): ViewValues =>
  ({
    'quote.amount': { 'quote.amount': { type: 'plain_text_input', value: '1500' } },
    'quote.origin': { 'quote.origin': { type: 'static_select', selected_option: { value: origin } } },
    'quote.destination': {
      'quote.destination': { type: 'static_select', selected_option: { value: destination } },
    },
    'quote.address': { 'quote.address': { type: 'plain_text_input', value: address } },
  }) as unknown as ViewValues;

describe('quote destination address', () => {
  const metadata = readQuoteMetadata(quoteModal({ networks, environment: 'SANDBOX' }).private_metadata);

  it('carries each offered network and the family of the non-EVM ones in the form', () => {
    expect(metadata).toEqual({
      networks: ['n-base', 'n-sol', 'n-tron'],
      families: { 'n-sol': 'solana', 'n-tron': 'tron' },
    });
  });

  it('accepts a Solana address for Solana and an EVM address for Base', () => {
    expect(parseQuote(form('n-sol', SOLANA), metadata)).toMatchObject({
      ok: true,
      value: { destinationNetworkId: 'n-sol', destinationAddress: SOLANA },
    });
    expect(parseQuote(form('n-base', EVM, 'n-sol'), metadata)).toMatchObject({
      ok: true,
      value: { destinationNetworkId: 'n-base', destinationAddress: EVM },
    });
    const evmToSolana = parseQuote(form('n-sol', EVM), metadata);
    expect(evmToSolana).toMatchObject({
      ok: false,
      errors: { 'quote.address': expect.stringMatching(/^Destination address: must be a Solana address/) },
    });
    expect(parseQuote(form('n-tron', SOLANA), metadata)).toMatchObject({
      ok: false,
      errors: { 'quote.address': expect.stringMatching(/Tron address/) },
    });
  });

  it('checks unknown or unreadable metadata as EVM and offers no network', () => {
    const none = readQuoteMetadata('not json');
    expect(none).toEqual({ networks: [], families: {} });
    expect(parseQuote(form('n-sol', SOLANA), none)).toMatchObject({
      ok: false,
      errors: { 'quote.destination': expect.any(String), 'quote.address': expect.stringMatching(/0x/) },
    });
  });
});
