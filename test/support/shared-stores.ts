// The stores several replicas can share (Redis, PostgreSQL), for replica tests that run on each one
// that answers: two stores opened with one prefix behave like two replicas.
import { createStore, type Store } from '../../src/store/index.js';
import { postgresAvailable, testDatabaseOnce } from './postgres.js';
import { REDIS_URL, redisAvailable } from './redis.js';

export interface SharedStore {
  name: 'Redis' | 'PostgreSQL';
  /** False when none answers (tests skip, with the notice already printed). */
  up: boolean;
  open(prefix: string): Promise<Store>;
  /** Remove what was made for this test file (call in afterAll). */
  dispose(): Promise<void>;
}

export async function sharedStores(): Promise<SharedStore[]> {
  const [redisUp, postgresUp] = await Promise.all([redisAvailable(), postgresAvailable()]);
  const database = testDatabaseOnce();
  return [
    {
      name: 'Redis',
      up: redisUp,
      open: (prefix) => createStore(REDIS_URL, { prefix }),
      dispose: async () => {},
    },
    {
      name: 'PostgreSQL',
      up: postgresUp,
      open: async (prefix) => createStore(await database.url(), { prefix }),
      dispose: database.drop,
    },
  ];
}
