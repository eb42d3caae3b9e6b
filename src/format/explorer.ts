// Block explorer pages for hashes and addresses. The bot links only to pages it checked: https on a
// known explorer host. A link the service or a webhook sends on another host, or over http, is not
// made into a link (an approver must never see "View on the explorer" that leads elsewhere).
import type { CngnEnvironment } from './environment.js';

// By network code, as the service or a webhook names it: a Map, so no code finds Object's own members.
const EXPLORERS = new Map<string, { test: string; live: string }>([
  ['base', { test: 'https://sepolia.basescan.org/tx/', live: 'https://basescan.org/tx/' }],
  ['bsc', { test: 'https://testnet.bscscan.com/tx/', live: 'https://bscscan.com/tx/' }],
  ['polygon', { test: 'https://amoy.polygonscan.com/tx/', live: 'https://polygonscan.com/tx/' }],
  ['eth', { test: 'https://sepolia.etherscan.io/tx/', live: 'https://etherscan.io/tx/' }],
  ['ethereum', { test: 'https://sepolia.etherscan.io/tx/', live: 'https://etherscan.io/tx/' }],
  ['celo', { test: 'https://alfajores.celoscan.io/tx/', live: 'https://celoscan.io/tx/' }],
  [
    'assetchain',
    { test: 'https://scan-testnet.assetchain.org/tx/', live: 'https://scan.assetchain.org/tx/' },
  ],
]);

/** The hosts of the explorers above, test and live. */
const EXPLORER_HOSTS: ReadonlySet<string> = new Set(
  [...EXPLORERS.values()].flatMap((e) => [new URL(e.test).hostname, new URL(e.live).hostname]),
);

/**
 * The URL as the bot may link it, or undefined: `https:` on a known explorer host, no user, password
 * or port, and nothing that could end a Slack link (`|`, `<`, `>`, spaces) once normalised.
 */
export function checkedExplorerUrl(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.port) return undefined;
  if (!EXPLORER_HOSTS.has(url.hostname)) return undefined;
  return /[\s|<>]/.test(url.href) ? undefined : url.href;
}

/** A transaction hash as chains write them: hex (with or without 0x) or base58. */
const TX_HASH = /^[0-9A-Za-z]{1,130}$/;

/**
 * An explorer URL for a hash: the event's own explorer link when it names this hash, else the same
 * explorer with the hash swapped in, else a known explorer for the network. Always a checked URL.
 */
export function explorerUrl(
  hash: string,
  explorerLink: string | null | undefined,
  network: string | null | undefined,
  environment: CngnEnvironment,
): string | undefined {
  const own = checkedExplorerUrl(explorerLink);
  if (own?.includes(hash)) return own;
  // Only a hash goes into a URL the bot builds: never a path, a query or words from the service.
  if (!TX_HASH.test(hash)) return undefined;
  const prefix = own?.match(/^(https:\/\/\S+\/tx\/)0x[0-9a-fA-F]+$/)?.[1];
  if (prefix) return checkedExplorerUrl(`${prefix}${hash}`);
  const known = network ? EXPLORERS.get(network.toLowerCase()) : undefined;
  if (known) return checkedExplorerUrl(`${environment === 'live' ? known.live : known.test}${hash}`);
  return undefined;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * An explorer page for an EVM address: the explorer of the transaction's own link when there is
 * one, else a known explorer for the network (by short code). Other address forms get none.
 */
export function addressExplorerUrl(
  address: string,
  explorerLink: string | null | undefined,
  network: string | null | undefined,
  environment: CngnEnvironment,
): string | undefined {
  if (!EVM_ADDRESS.test(address)) return undefined;
  const prefix = checkedExplorerUrl(explorerLink)?.match(/^(https:\/\/[^\s|<>]+\/)tx\/[^\s|<>/]+$/)?.[1];
  if (prefix) return checkedExplorerUrl(`${prefix}address/${address}`);
  const known = network ? EXPLORERS.get(network.toLowerCase()) : undefined;
  if (!known) return undefined;
  return checkedExplorerUrl(
    `${(environment === 'live' ? known.live : known.test).replace(/tx\/$/, 'address/')}${address}`,
  );
}
