import { describe, expect, it } from 'vitest';
import { addressExplorerUrl, checkedExplorerUrl, explorerUrl } from '../../src/format/explorer.js';

const HASH = `0x${'1'.repeat(64)}`;

describe('explorer links', () => {
  it('links EVM addresses to the explorer of the transaction or of the network, and nothing else', () => {
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(addressExplorerUrl(address, `https://celoscan.io/tx/${HASH}`, 'base', 'live')).toBe(
      `https://celoscan.io/address/${address}`,
    );
    expect(addressExplorerUrl(address, null, 'BSC', 'test')).toBe(
      `https://testnet.bscscan.com/address/${address}`,
    );
    expect(addressExplorerUrl(address, null, 'xbn', 'live')).toBeUndefined();
    expect(addressExplorerUrl('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', null, 'base', 'live')).toBeUndefined();
  });

  it('accepts only https pages on a known explorer host', () => {
    expect(checkedExplorerUrl(`https://basescan.org/tx/${HASH}`)).toBe(`https://basescan.org/tx/${HASH}`);
    expect(checkedExplorerUrl(`https://sepolia.etherscan.io/tx/${HASH}`)).toBeDefined();
    for (const url of [
      `http://basescan.org/tx/${HASH}`,
      `https://evil.example/tx/${HASH}`,
      `https://basescan.org.evil.example/tx/${HASH}`,
      `https://user:pw@basescan.org/tx/${HASH}`,
      `https://basescan.org:8443/tx/${HASH}`,
      'https://basescan.org/tx/0x1|Approve',
      'javascript:alert(1)',
      '<!channel>',
      '',
      undefined,
    ]) {
      expect(checkedExplorerUrl(url), String(url)).toBeUndefined();
    }
    // What could end a Slack link is percent-encoded by the URL parser, not passed on.
    expect(checkedExplorerUrl('https://basescan.org/tx/<!channel> x')).toBe(
      'https://basescan.org/tx/%3C!channel%3E%20x',
    );
  });

  it('never hands back the link an event sent when it is not a checked explorer page', () => {
    expect(explorerUrl(HASH, `https://evil.example/tx/${HASH}`, 'base', 'live')).toBe(
      `https://basescan.org/tx/${HASH}`,
    );
    expect(explorerUrl(HASH, `http://basescan.org/tx/${HASH}`, null, 'live')).toBeUndefined();
    expect(explorerUrl(HASH, `https://polygonscan.com/tx/${HASH}`, 'base', 'live')).toBe(
      `https://polygonscan.com/tx/${HASH}`,
    );
    // Words from the service in place of a hash make no URL, not even on a known explorer.
    for (const notAHash of ['*ADA* _OBI_', '../address/0xabc', '0xabc?x=1', '0xabc/../../token'])
      expect(explorerUrl(notAHash, null, 'base', 'live'), notAHash).toBeUndefined();
    expect(explorerUrl('0xabc', `https://polygonscan.com/tx/${HASH}`, null, 'live')).toBe(
      'https://polygonscan.com/tx/0xabc',
    );
    expect(addressExplorerUrl(`0x${'5'.repeat(40)}`, `https://evil.example/tx/${HASH}`, null, 'live')).toBe(
      undefined,
    );
  });
});
