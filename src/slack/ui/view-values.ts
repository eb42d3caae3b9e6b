// Reading a modal's submission as Slack sends it: each input's state checked for its type, the
// values handed to a form's own parser, and the private_metadata our own modals write. Pure.
import { z } from 'zod';
import { ADDRESS_FAMILIES } from '../../format/wallet-address.js';

// One input element's state as Slack sends it; only the fields our forms read are checked.
const elementSchema = z.looseObject({
  value: z.string().nullish(),
  selected_option: z.looseObject({ value: z.string() }).nullish(),
  selected_options: z.array(z.looseObject({ value: z.string() })).nullish(),
});
type ElementState = z.infer<typeof elementSchema>;
export type ViewValues = Record<string, Record<string, ElementState>>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'true/false';
  return `a ${typeof value}`;
}

/** `withdraw.amount` → `Amount`: a name for a field whose form gave no sentence of its own. */
function fieldName(blockId: string): string {
  const last = (blockId.split('.').pop() ?? blockId).replace(/_/g, ' ');
  return `${last.charAt(0).toUpperCase()}${last.slice(1)}`;
}

function readElement(element: unknown): { state: ElementState } | { problem: string } {
  if (!isRecord(element)) return { problem: `not a value this form takes (${kindOf(element)})` };
  const parsed = elementSchema.safeParse(element);
  if (parsed.success) return { state: parsed.data };
  const field = parsed.error.issues[0]?.path[0];
  return {
    problem:
      field === 'value' ? `expected text, not ${kindOf(element.value)}` : 'choose an option from the list',
  };
}

// Keys come from the request: objects without a prototype, so `__proto__` is a key like any other.
const dictionary = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/**
 * The submitted `view.state.values`, read with zod. An element of another shape than Slack sends (a
 * number where text belongs, say) is left out, and its block id maps to the problem.
 */
function readViewValues(raw: unknown): { values: ViewValues; errors: Record<string, string> } {
  const values = dictionary<Record<string, ElementState>>();
  const errors = dictionary<string>();
  if (!isRecord(raw)) return { values, errors };
  for (const [blockId, block] of Object.entries(raw)) {
    if (!isRecord(block)) {
      errors[blockId] = `not a value this form takes (${kindOf(block)})`;
      continue;
    }
    const elements = dictionary<ElementState>();
    for (const [actionId, element] of Object.entries(block)) {
      const read = readElement(element);
      if ('problem' in read) errors[blockId] = read.problem;
      else elements[actionId] = read.state;
    }
    values[blockId] = elements;
  }
  return { values, errors };
}

/**
 * Parse a submitted modal: its values are read with zod first, then checked by `parse`. A field of the
 * form (`fields`: its block ids) with a value of the wrong type is refused with that reason, under the
 * name the form's own sentence gives it (else one made from its id); never a throw before the ack.
 * Blocks the form does not have are not read, so they are not answered either.
 */
export function parseSubmission<T>(
  view: { state?: { values?: unknown } },
  fields: Record<string, string>,
  parse: (values: ViewValues) => Parsed<T>,
): Parsed<T> {
  const read = readViewValues(view.state?.values);
  const parsed = parse(read.values);
  const wrongTyped = Object.values(fields).filter((id) => read.errors[id] !== undefined);
  if (wrongTyped.length === 0) return parsed;
  const errors = parsed.ok ? {} : { ...parsed.errors };
  for (const id of wrongTyped) {
    const name = errors[id]?.split(': ')[0] || fieldName(id);
    errors[id] = `${name}: ${read.errors[id]}`;
  }
  return { ok: false, errors };
}

export const readText = (values: ViewValues, id: string): string => (values[id]?.[id]?.value ?? '').trim();
export const readSelect = (values: ViewValues, id: string): string | undefined =>
  values[id]?.[id]?.selected_option?.value ?? undefined;

// private_metadata written by our own modals; a field that does not read as ours is left out.
const metadataSchema = z.object({
  networks: z.array(z.string()).optional().catch(undefined),
  families: z.record(z.string(), z.enum(ADDRESS_FAMILIES)).optional().catch(undefined),
  id: z.string().optional().catch(undefined),
  channel: z.string().optional().catch(undefined),
  lookAlike: z.string().optional().catch(undefined),
  sameAs: z.string().optional().catch(undefined),
});

/** A modal's private_metadata; anything unreadable reads as empty. */
export function readMetadata(text: string | undefined): z.infer<typeof metadataSchema> {
  try {
    return metadataSchema.parse(JSON.parse(text || '{}'));
  } catch {
    return {};
  }
}
