// Building a real CngnClient against a running embedded sandbox, with its own store.
import { type CngnClient, type CngnClientOptions, createCngnClient } from '../../src/cngn/client.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { createStore, type Store } from '../../src/store/index.js';

export async function clientFor(
  sandbox: Sandbox,
  overrides: Partial<CngnClientOptions> = {},
): Promise<{ client: CngnClient; store: Store }> {
  const store = overrides.store ?? (await createStore('memory://', { prefix: `client-${Math.random()}` }));
  const client = createCngnClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    encryptionKey: sandbox.encryptionKey,
    privateKey: sandbox.privateKey,
    store,
    rateLimit: { limit: 1000, windowSeconds: 60 },
    retry: { baseDelayMs: 5 },
    ...overrides,
  });
  return { client, store };
}

/** The decrypted body the sandbox received on the last request to `path`. */
export function lastPlainBody(sandbox: Sandbox, method: string, path: string): unknown {
  const entry = [...sandbox.requests].reverse().find((r) => r.method === method && r.path === path);
  return entry?.plainBody;
}
