// The workbench's record of its pretend workspace, kept in the bot's store under `workbench:` so a
// reload (and a restart on a file or Redis store) shows the same state: each channel's messages with
// thread replies and ephemerals, each user's modal stack and App Home, and a version bumped on every
// change. The workbench is one local process, so every change goes through one queue here: a
// read-modify-write of a channel never interleaves with another.
import { randomBytes } from 'node:crypto';
import type { View } from '@slack/types';
import type { Store } from '../store/index.js';
import type { WorkbenchMessage, WorkbenchModal } from './protocol.js';

const KEY = {
  version: 'workbench:version',
  channels: 'workbench:channels',
  channel: (id: string) => `workbench:channel:${id}`,
  modals: (user: string) => `workbench:modals:${user}`,
  home: (user: string) => `workbench:home:${user}`,
  response: (token: string) => `workbench:response:${token}`,
  file: (id: string) => `workbench:file:${id}`,
};

/** A shared file's bytes (base64, as the store keeps JSON) with its name. */
export interface StoredFile {
  id: string;
  name: string;
  title: string;
  base64: string;
}

/** What a response_url answers for: who clicked or typed, where, and which message (if any). */
export interface ResponseContext {
  user: string;
  channel: string;
  /** The message the click came from (block_actions); absent for slash commands. */
  messageTs?: string;
  uses: number;
}

/** Slack's response_url lives 30 minutes and takes 5 posts. */
const RESPONSE_URL_TTL_MS = 30 * 60_000;
const RESPONSE_URL_USES = 5;

export const newId = (prefix: string, bytes = 5) =>
  `${prefix}${randomBytes(bytes).toString('hex').toUpperCase()}`;

export class Workspace {
  private queue: Promise<unknown> = Promise.resolve();
  private lastMicros = 0;
  private readonly listeners = new Set<(version: number) => void>();

  constructor(
    private readonly store: Store,
    /** Messages kept per channel: the oldest go (with their replies) so a long demo stays quick. */
    private readonly keep = 1000,
  ) {}

  /** Run one change after every change before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Called with the new version after every change (the SSE stream). */
  subscribe(listener: (version: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async version(): Promise<number> {
    return (await this.store.get<number>(KEY.version)) ?? 0;
  }

  private async bump(): Promise<number> {
    const version = (await this.version()) + 1;
    await this.store.set(KEY.version, version);
    for (const listener of this.listeners) listener(version);
    return version;
  }

  /** A Slack-shaped ts (`seconds.micros`), increasing within this process. */
  private nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
  }

  /** Channel IDs that hold messages (the fixed ones and any other the bot posted to). */
  async channelIds(): Promise<string[]> {
    return this.store.setMembers(KEY.channels);
  }

  async messages(channel: string): Promise<WorkbenchMessage[]> {
    return (await this.store.get<WorkbenchMessage[]>(KEY.channel(channel))) ?? [];
  }

  async message(channel: string, ts: string): Promise<WorkbenchMessage | undefined> {
    return (await this.messages(channel)).find((m) => m.ts === ts);
  }

  /** Add a message (a reply when thread_ts names its parent); answers it with its new ts. */
  post(message: Omit<WorkbenchMessage, 'ts'>): Promise<WorkbenchMessage> {
    return this.serial(async () => {
      const list = await this.messages(message.channel);
      const posted: WorkbenchMessage = { ...message, ts: this.nextTs() };
      if (posted.thread_ts) {
        const parent = list.find((m) => m.ts === posted.thread_ts && !m.thread_ts);
        if (parent) parent.reply_count = (parent.reply_count ?? 0) + 1;
        else delete posted.thread_ts; // Slack posts to the channel when the parent is unknown
      }
      list.push(posted);
      await this.store.addToSet(KEY.channels, message.channel);
      await this.store.set(KEY.channel(message.channel), this.trimmed(list));
      await this.bump();
      return posted;
    });
  }

  private trimmed(list: WorkbenchMessage[]): WorkbenchMessage[] {
    if (list.length <= this.keep) return list;
    const kept = list.slice(-this.keep);
    const parents = new Set(kept.filter((m) => !m.thread_ts).map((m) => m.ts));
    return kept.filter((m) => !m.thread_ts || parents.has(m.thread_ts));
  }

  /** Change a message in place; undefined when there is no such message. */
  edit(
    channel: string,
    ts: string,
    change: (message: WorkbenchMessage) => WorkbenchMessage | 'delete',
  ): Promise<WorkbenchMessage | undefined> {
    return this.serial(async () => {
      const list = await this.messages(channel);
      const index = list.findIndex((m) => m.ts === ts);
      const current = list[index];
      if (!current) return undefined;
      const next = change(current);
      if (next === 'delete') {
        list.splice(index, 1);
        const parent = current.thread_ts ? list.find((m) => m.ts === current.thread_ts) : undefined;
        if (parent?.reply_count) parent.reply_count -= 1;
      } else {
        list[index] = next;
      }
      await this.store.set(KEY.channel(channel), list);
      await this.bump();
      return next === 'delete' ? current : next;
    });
  }

  async modals(user: string): Promise<WorkbenchModal[]> {
    return (await this.store.get<WorkbenchModal[]>(KEY.modals(user))) ?? [];
  }

  /** Change one user's modal stack; fn returns the new stack and an answer. */
  changeModals<T>(
    user: string,
    fn: (stack: WorkbenchModal[]) => { stack: WorkbenchModal[]; answer: T },
  ): Promise<T> {
    return this.serial(async () => {
      const { stack, answer } = fn(await this.modals(user));
      await this.store.set(KEY.modals(user), stack);
      await this.bump();
      return answer;
    });
  }

  async home(user: string): Promise<(View & { id: string; hash: string }) | undefined> {
    return this.store.get(KEY.home(user));
  }

  setHome(user: string, view: View & { id: string; hash: string }): Promise<void> {
    return this.serial(async () => {
      await this.store.set(KEY.home(user), view);
      await this.bump();
    });
  }

  async newResponseUrl(context: Omit<ResponseContext, 'uses'>): Promise<string> {
    const token = randomBytes(12).toString('hex');
    await this.store.set(KEY.response(token), { ...context, uses: 0 }, RESPONSE_URL_TTL_MS);
    return token;
  }

  /** The response_url's context, counting this use; undefined when unknown, expired or used up. */
  useResponseUrl(token: string): Promise<ResponseContext | undefined> {
    return this.serial(async () => {
      const context = await this.store.get<ResponseContext>(KEY.response(token));
      if (!context || context.uses >= RESPONSE_URL_USES) return undefined;
      // Keep the original expiry roughly: a use does not extend the URL's life by much in practice.
      await this.store.set(KEY.response(token), { ...context, uses: context.uses + 1 }, RESPONSE_URL_TTL_MS);
      return context;
    });
  }

  /** Keep a shared file's bytes, so its download link works after a reload or restart. */
  async putFile(file: StoredFile): Promise<void> {
    await this.store.set(KEY.file(file.id), file);
  }

  file(id: string): Promise<StoredFile | undefined> {
    return this.store.get<StoredFile>(KEY.file(id));
  }
}
