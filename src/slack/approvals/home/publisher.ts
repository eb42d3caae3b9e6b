// Publishes each person's App Home (views.publish) when they open it and whenever a request that
// concerns them changes: they filed it, they may approve it, or they approved it. Bursts are coalesced
// per person (one publish at a time, the next one waiting at most the debounce), and a person who never
// opened Home costs nothing: who opened it is remembered in the store, shared by replicas.
// Every read comes from the store and the caches (requests, the last balance read, the request
// budget's state, the last alerts): publishing Home never calls the service.
import type { WebClient } from '@slack/web-api';
import { isLive, REQUEST_KINDS, type RequestKind, type Roles } from '../../../access/index.js';
import type { ApprovalEngine, ApprovalRequest } from '../../../approvals/index.js';
import type { CngnApi } from '../../../cngn/api.js';
import type { Logger } from '../../../log.js';
import type { Store } from '../../../store/index.js';
import type { RecentAlerts } from '../../../webhooks/recent.js';
import { READERS } from '../../types.js';
import { formerReaderHome, HOME_MINE_SHOWN, type HomeData, type HomeRoles, homeView } from './blocks.js';
import { SharedReads } from './shared-reads.js';

export interface HomePublisherOptions {
  engine: ApprovalEngine;
  api: CngnApi;
  store: Store;
  client: WebClient;
  alerts?: RecentAlerts | undefined;
  /** The roles, so Home says which this person holds. */
  roles?: Roles | undefined;
  /** A burst of changes for one person within this becomes one publish (default 1 s). */
  debounceMs?: number;
  now?: () => Date;
  log?: Pick<Logger, 'warn'>;
  /**
   * Whether Slack describes `user` as someone who may act here: one who opened Home as a member and is
   * now a guest, deactivated or of another workspace is not sent the treasury again. Absent: everyone.
   */
  mayAct?: (user: string) => Promise<boolean>;
}

const OPENED_SET = 'home:opened';
const mineKey = (user: string) => `home:requests:${user}`;
const permalinkKey = (id: string) => `home:permalink:${id}`;
/** Ids of a person's own requests kept for Home, newest first. */
const MINE_KEPT = 20;

export class HomePublisher {
  private readonly now: () => Date;
  private readonly debounceMs: number;
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; fire: () => void }>();
  private readonly publishing = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  /** The reads every publish makes alike, shared by the publishes one change asks for. */
  private readonly shared = new SharedReads<'open' | 'delegations' | 'limits' | 'freeze' | 'alerts'>();
  /** Per person, the tick of the latest request for a publish of their Home. */
  private readonly requested = new Map<string, number>();

  constructor(private readonly options: HomePublisherOptions) {
    this.now = options.now ?? (() => new Date());
    this.debounceMs = options.debounceMs ?? 1_000;
  }

  /** Follow every persisted change of a request; the engine never waits for Home. */
  listen(): void {
    this.options.engine.onChange(async (request) => {
      void this.track(
        this.requestChanged(request).catch((error: unknown) => {
          this.options.log?.warn('could not bring App Home up to date', {
            requestId: request.id,
            error: String(error),
          });
        }),
      );
    });
  }

  /** The freeze of sends began or ended: every Home that was opened is published again. */
  async everyoneChanged(): Promise<void> {
    for (const user of await this.options.store.setMembers(OPENED_SET)) this.schedule(user);
  }

  /**
   * The person opened their Home tab: remember it and publish it now. Written to the store at every
   * open: another replica may have taken them off the list (they had stopped reading) since this one
   * last wrote it.
   */
  async homeOpened(user: string): Promise<void> {
    await this.options.store.addToSet(OPENED_SET, user);
    this.requested.set(user, this.shared.ask());
    this.run(user);
  }

  /** Resolves when scheduled and running publishes have finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Drop publishes still waiting for their debounce (shutdown). */
  stop(): void {
    for (const { timer, fire } of this.timers.values()) {
      clearTimeout(timer);
      fire();
    }
    this.timers.clear();
  }

  private track(work: Promise<void>): Promise<void> {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return work;
  }

  private async requestChanged(request: ApprovalRequest): Promise<void> {
    const { store, engine } = this.options;
    if (request.history.length === 1 && request.history[0]?.action === 'filed') {
      await store.withLock(mineKey(request.requester), async () => {
        const ids = (await store.get<string[]>(mineKey(request.requester))) ?? [];
        if (!ids.includes(request.id))
          await store.set(mineKey(request.requester), [request.id, ...ids].slice(0, MINE_KEPT));
      });
    }
    const opened = new Set(await store.setMembers(OPENED_SET));
    if (opened.size === 0) return;
    const concerned = new Set([
      request.requester,
      ...request.approvals.map((a) => a.user),
      ...(await engine.approversAndDelegates()),
      // A delegation granted or revoked concerns its delegate too (a revoked one is no longer live).
      ...(request.kind === 'delegation' ? [request.payload.delegate] : []),
    ]);
    for (const user of concerned) if (opened.has(user)) this.schedule(user);
  }

  /** Publish after the debounce; a person already waiting for one is not scheduled twice. */
  private schedule(user: string): void {
    this.requested.set(user, this.shared.ask());
    if (this.timers.has(user)) return;
    let fire!: () => void;
    const fired = new Promise<void>((resolve) => {
      fire = resolve;
    });
    const timer = setTimeout(() => {
      this.timers.delete(user);
      this.run(user);
      fire();
    }, this.debounceMs);
    timer.unref();
    this.timers.set(user, { timer, fire });
    void this.track(fired);
  }

  /** One publish per person at a time; a change during it publishes once more afterwards. */
  private run(user: string): void {
    if (this.publishing.has(user)) {
      this.again.add(user);
      return;
    }
    const work = this.publish(user)
      .catch((error: unknown) => {
        this.options.log?.warn('could not publish App Home', { user, error: String(error) });
      })
      .finally(() => {
        this.publishing.delete(user);
        if (this.again.delete(user)) this.schedule(user);
      });
    this.publishing.set(user, work);
    void this.track(work);
  }

  private async publish(user: string): Promise<void> {
    if (this.options.mayAct && !(await this.options.mayAct(user))) return;
    // Home is for readers: one who opened it as a reader and is one no longer is published to no more.
    if (this.options.roles && !(await this.options.roles.holds(user, READERS))) return this.forget(user);
    const since = this.requested.get(user) ?? this.shared.ask();
    const view = homeView(await this.homeData(user, since));
    await this.options.client.views.publish({ user_id: user, view });
  }

  /**
   * Stop publishing to someone who no longer reads the treasury: out of the opened list, and their Home
   * drawn once more without the treasury (Slack keeps showing the last Home published until then).
   */
  private async forget(user: string): Promise<void> {
    await this.options.store.removeFromSet(OPENED_SET, user);
    const view = formerReaderHome(this.options.api.environment);
    await this.options.client.views.publish({ user_id: user, view });
  }

  private async homeData(user: string, since: number): Promise<HomeData> {
    const { engine, api, store } = this.options;
    const now = this.now();
    const shared = this.shared;
    // Begun together, so the publishes one change asks for find each other's reads under way.
    const [open, delegations, limits, freeze, alerts] = await Promise.all([
      shared.read('open', since, () => engine.openRequests()),
      shared.read('delegations', since, () => engine.delegations()),
      shared.read('limits', since, () => engine.limitUse()).catch(() => undefined),
      shared.read('freeze', since, () => engine.currentFreeze()),
      shared.read('alerts', since, async () => (await this.options.alerts?.latest(5)) ?? []).catch(() => []),
    ]);
    const waiting = await engine.waitingFor(user, now, open, delegations);
    const ids = new Set([
      ...((await store.get<string[]>(mineKey(user))) ?? []),
      ...open.filter((r) => r.requester === user).map((r) => r.id),
    ]);
    const own = (await Promise.all([...ids].map((id) => engine.get(id))))
      .filter((r): r is ApprovalRequest => r?.requester === user)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, HOME_MINE_SHOWN);
    const mine = await Promise.all(
      own.map(async (request) => ({ request, link: await this.permalink(request) })),
    );
    return {
      now,
      environment: api.environment,
      waiting,
      approvalsShown: (request) => engine.approvalsShown(request),
      mine,
      balance: await api.lastBalance().catch(() => undefined),
      budget: await api.budget().catch(() => undefined),
      alerts,
      limits,
      delegations: delegations.filter(
        (d) => isLive(d, engine.now()) && (d.delegator === user || d.delegate === user),
      ),
      freeze,
      roles: await this.rolesOf(user).catch(() => undefined),
      // The rule in force (the workbench's sandbox switches it while the bot runs), not the start-up one.
      signing: engine.passkeys.signatures().options?.rule ?? { mode: 'off' },
    };
  }

  /** What this person holds (guests and bots are refused before Home is drawn). */
  private async rolesOf(user: string): Promise<HomeRoles | undefined> {
    const roles = this.options.roles;
    if (!roles) return undefined;
    const approves: RequestKind[] = [];
    for (const kind of REQUEST_KINDS)
      if (await roles.holds(user, { role: 'approver', kind, delegates: true })) approves.push(kind);
    return {
      reader: await roles.holds(user, { role: 'reader' }),
      requester: await roles.holds(user, { role: 'requester' }),
      auditor: await roles.holds(user, { role: 'auditor' }),
      approves,
    };
  }

  /** The request message's permalink, asked of Slack once per request and kept in the store. */
  private async permalink(request: ApprovalRequest): Promise<string | undefined> {
    const where = request.announcement;
    if (!where) return undefined;
    const { store, client } = this.options;
    const known = await store.get<string>(permalinkKey(request.id));
    if (known) return known;
    try {
      const answer = await client.chat.getPermalink({ channel: where.channel, message_ts: where.ts });
      if (!answer.permalink) return undefined;
      await store.set(permalinkKey(request.id), answer.permalink);
      return answer.permalink;
    } catch (error) {
      this.options.log?.warn('could not read a request message permalink', {
        requestId: request.id,
        error: String(error),
      });
      return undefined;
    }
  }
}
