// Which of our requests a service report is about. A report names requests by its references (the
// transaction reference, the service's transaction id) through one index shared by every environment,
// so a stale entry or the same id in two environments can point a report at a request it is not about.
// Only a report that names exactly one request, of the environment the bot now talks to, settles it;
// anything else settles nothing (the request's own polls still read the service), is logged, and is
// told (`refused`) so a person hears of it.
import type { CustodyReport, ServiceEnvironment } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import type { EngineLog } from './types.js';

/** A report that settles nothing because of the requests it names: a person should check it. */
export interface ReportRefusal {
  /** The delivery it came in, when it came in one (one alert per delivery). */
  delivery?: string;
  report: string;
  why: 'other-environment' | 'two-requests';
  ourEnvironment: ServiceEnvironment;
  /** Each reference it gave, the request that reference names ('none') and that request's environment. */
  named: Array<{ reference: string; requestId: string; environment: string }>;
}

/** The one own-environment request a report names, or none (logged and told when the names disagree). */
export async function requestNamedByReport(
  repo: ApprovalRepository,
  environment: ServiceEnvironment,
  report: Pick<CustodyReport, 'name' | 'references' | 'delivery'>,
  log: EngineLog | undefined,
  refused: (refusal: ReportRefusal) => Promise<void> = async () => {},
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
  const refusal = (why: ReportRefusal['why']): ReportRefusal => ({
    ...(report.delivery ? { delivery: report.delivery } : {}),
    report: report.name,
    why,
    ourEnvironment: environment,
    named: fields.named,
  });
  if (named.some((n) => n.environment !== environment)) {
    log?.warn('webhook names a request that is not of this environment: it settles nothing', fields);
    await refused(refusal('other-environment'));
    return undefined;
  }
  if (ids.length > 1) {
    log?.warn('webhook names two different requests: it settles neither', fields);
    await refused(refusal('two-requests'));
    return undefined;
  }
  return ids[0];
}
