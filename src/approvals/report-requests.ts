// Which of our requests a service report is about. A report names requests by its references (the
// transaction reference, the service's transaction id) through one index shared by every environment,
// so a stale entry or the same id in two environments can point a report at a request it is not about.
// Only a report that names exactly one request, of the environment the bot now talks to, settles it;
// anything else settles nothing (the request's own polls still read the service) and is logged.
import type { ServiceEnvironment } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import type { EngineLog } from './types.js';

/** The one own-environment request a report names, or none (logged when the names disagree). */
export async function requestNamedByReport(
  repo: ApprovalRepository,
  environment: ServiceEnvironment,
  report: { name: string; references: readonly string[] },
  log: EngineLog | undefined,
): Promise<string | undefined> {
  const found = await Promise.all(
    report.references.map(async (reference) => ({ reference, id: await repo.findIdByReference(reference) })),
  );
  const ids = [...new Set(found.flatMap(({ id }) => (id === undefined ? [] : [id])))];
  if (ids.length === 0) return undefined;
  const named = await Promise.all(
    ids.map(async (id) => ({ id, environment: (await repo.get(id))?.environment ?? 'none stored' })),
  );
  const fields = {
    webhook: report.name,
    ourEnvironment: environment,
    named: found.map(({ reference, id }) => ({
      reference,
      requestId: id ?? 'none',
      environment: named.find((n) => n.id === id)?.environment ?? 'none',
    })),
  };
  if (named.some((n) => n.environment !== environment)) {
    log?.warn('webhook names a request that is not of this environment: it settles nothing', fields);
    return undefined;
  }
  if (ids.length > 1) {
    log?.warn('webhook names two different requests: it settles neither', fields);
    return undefined;
  }
  return ids[0];
}
