/// <reference lib="dom" />
// The page's calls to the bot (paths and bodies from protocol.ts): a success, or the bot's sentence.
import type { Problem } from '../protocol.js';

export async function post<T>(path: string, body: unknown): Promise<T | Problem> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    });
  } catch {
    return { ok: false, problem: 'The bot did not answer: check your connection and try again.' };
  }
  const text = await response.text();
  try {
    return JSON.parse(text) as T | Problem;
  } catch {
    return { ok: false, problem: text || `The bot answered ${response.status}.` };
  }
}

/** Why the browser made no passkey or signature, in a sentence (its own words after ours). */
export function browserProblem(error: unknown, what: string): string {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'NotAllowedError')
    return `The browser made no ${what}: it was cancelled or timed out. Nothing changed.`;
  return `The browser made no ${what} (${message}). Nothing changed.`;
}
