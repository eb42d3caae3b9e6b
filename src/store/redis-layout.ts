// Before keyv, the Redis store kept values at `<namespace>:kv:<key>` and lists, sets and locks at
// `<namespace>:list:…`, `:set:…`, `:lock:…`. This version reads none of them, so starting beside them
// would hide approved-but-unsent requests, the audit trail, queued alerts and dedupe records, and
// split the rate budget with a replica of the previous version. Start-up refuses instead.
//
// No migration: it cannot be made safe while a replica of the previous version may still be running
// (both would win the same claim, and a money call could go out twice), and refusing until the old
// keys are gone makes "finish and stop the previous version first" the only way through.
import type { RedisClientType } from '@redis/client';

export class OldRedisLayoutError extends Error {
  override name = 'OldRedisLayoutError';
}

const OLD_KINDS = ['kv', 'list', 'set', 'lock'] as const;

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A few keys of the earlier layout under `namespace`, or none. One SCAN pass at most, stopping at the
 * first batch that has any; MATCH leaves out this version's keys (`<namespace>::…`) on the server.
 */
export async function findOldLayoutKeys(client: RedisClientType, namespace: string): Promise<string[]> {
  const match = `${escapeGlob(namespace)}:[kls]*`;
  const old = new RegExp(`^${escapeRegExp(namespace)}:(${OLD_KINDS.join('|')}):`);
  for await (const keys of client.scanIterator({ MATCH: match, COUNT: 1000 })) {
    const found = keys.filter((key) => old.test(key));
    if (found.length) return found.sort().slice(0, 3);
  }
  return [];
}

export async function refuseOldLayout(client: RedisClientType, namespace: string): Promise<void> {
  const found = await findOldLayoutKeys(client, namespace);
  if (found.length === 0) return;
  const patterns = OLD_KINDS.map((kind) => `${namespace}:${kind}:*`).join(', ');
  throw new OldRedisLayoutError(
    `Redis holds data of the store layout before this version (e.g. ${found.join(', ')}), which this ` +
      'version cannot see: let the previous version finish its pending approvals and queued alerts, ' +
      `stop it, then delete the keys matching ${patterns} (README, "Running several replicas").`,
  );
}
