// The webhook secret's rotation: CNGN_WEBHOOK_SECRET_PREVIOUS, the secret the service signed with
// before the switch, accepted beside CNGN_WEBHOOK_SECRET until every delivery uses the new one.
// Runbook: docs/rotation.md#the-webhook-secret.
import { z } from 'zod';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Spread into the configuration's schema (docs/configuration.md lists it from there). */
export const WEBHOOK_VARIABLES = {
  CNGN_WEBHOOK_SECRET_PREVIOUS: z.preprocess(blank, z.string().trim().optional()),
};

/**
 * A previous secret alone would let the old secret sign and nothing else: a half-done rotation.
 * `has` counts a secret whose file could not be read as given (its one problem is the file).
 */
export function webhookProblems(has: (name: string) => boolean): string[] {
  return has('CNGN_WEBHOOK_SECRET_PREVIOUS') && !has('CNGN_WEBHOOK_SECRET')
    ? ['CNGN_WEBHOOK_SECRET_PREVIOUS: set only with CNGN_WEBHOOK_SECRET (the new secret) during a rotation']
    : [];
}
