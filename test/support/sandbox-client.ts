// The real client on the test's sandbox (the `sandbox` fixture), marked as the sandbox environment,
// with a memory store of its own; both are closed after the test, before the sandbox stops.
import type { CngnClient, CngnClientOptions } from '../../src/cngn/client.js';
import type { Store } from '../../src/store/index.js';
import { clientFor } from './cngn-client.js';
import { test } from './fixtures.js';

/** A client on the test's sandbox and the store it keeps its caches and budget in. */
export interface SandboxClient {
  client: CngnClient;
  store: Store;
}

/**
 * `test` plus `connect(options)`, a client on the test's sandbox with `options` on top of the
 * defaults; and `client` and `store`, one connected with the defaults.
 */
export const sandboxClientTest = test
  .extend(
    'connect',
    async ({ sandbox, defer }) =>
      async (overrides: Partial<CngnClientOptions> = {}): Promise<SandboxClient> => {
        const { client, store } = await clientFor(sandbox, { environment: 'sandbox', ...overrides });
        defer(() => store.close());
        defer(() => client.close());
        return { client, store };
      },
  )
  .extend('connected', async ({ connect }) => connect())
  .extend('client', async ({ connected }) => connected.client)
  .extend('store', async ({ connected }) => connected.store);
