/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's calls to the workbench server (routes and bodies from protocol.ts).
import {
  type ActionInput,
  type CloseInput,
  type CommandInput,
  type HomeInput,
  type MessageInput,
  type PasskeysInput,
  type SandboxAction,
  type SubmitInput,
  type SuggestAnswer,
  type SuggestInput,
  WORKBENCH_PREFIX,
  type WorkbenchAnswer,
  type WorkbenchChange,
  type WorkbenchState,
} from '../protocol.js';

const API = `${WORKBENCH_PREFIX}/api`;

async function post<T = WorkbenchAnswer>(path: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: 'The workbench did not answer: is `npm start` still running?' } as T;
  }
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    return { ok: false, error: text || `HTTP ${response.status}` } as T;
  }
}

export async function fetchState(user: string): Promise<WorkbenchState> {
  const response = await fetch(`${API}/state?user=${encodeURIComponent(user)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`state: HTTP ${response.status}`);
  return (await response.json()) as WorkbenchState;
}

export const api = {
  command: (input: CommandInput) => post('/command', input),
  message: (input: MessageInput) => post('/message', input),
  action: (input: ActionInput) => post('/action', input),
  submit: (input: SubmitInput) => post('/view/submit', input),
  close: (input: CloseInput) => post('/view/close', input),
  suggest: (input: SuggestInput) => post<SuggestAnswer>('/suggest', input),
  home: (input: HomeInput) => post('/home', input),
  sandbox: (action: SandboxAction, body: Record<string, string>) => post(`/sandbox/${action}`, body),
  passkeys: (input: PasskeysInput) =>
    post<WorkbenchAnswer & { passkeysRequired?: boolean }>('/sandbox/passkeys', input),
};

/** Calls `onVersion` with each version the server announces; the browser reconnects by itself. */
export function listen(onVersion: (version: number) => void, onOpen: () => void): EventSource {
  const events = new EventSource(`${API}/events`);
  events.addEventListener('open', onOpen);
  events.addEventListener('message', (event) => {
    try {
      const change = JSON.parse((event as MessageEvent<string>).data) as Partial<WorkbenchChange>;
      if (typeof change.version === 'number') onVersion(change.version);
    } catch {
      // a comment or keep-alive line: nothing to do
    }
  });
  return events;
}
