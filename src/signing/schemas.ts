// The bodies the passkey pages send, checked before anything reads them: the link's token, a
// passkey's name (1–60 characters), and the browser's WebAuthn JSON in the shapes
// @simplewebauthn/browser returns (binary values as base64url text). What the values mean is the
// engine's to verify; this only refuses what is not even that shape.
import { z } from 'zod';
import { NAME_MAX } from './protocol.js';

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

const token = base64url(200);
const credentialId = base64url(1_400);

const transports = z.array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])).max(8);

const registrationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4_000),
    attestationObject: base64url(16_000),
    authenticatorData: base64url(8_000).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(4_000).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()),
});

const authenticationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4_000),
    authenticatorData: base64url(8_000),
    signature: base64url(1_000),
    userHandle: base64url(200).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()),
});

export const tokenInput = z.strictObject({ token });

export const registerFileInput = z.strictObject({
  token,
  name: z
    .string()
    .trim()
    .min(1, 'name your passkey (such as "Bola\'s MacBook")')
    .max(NAME_MAX, `a passkey's name is at most ${NAME_MAX} characters`)
    // Kept as the words it is named by later (`/cngn passkey revoke` hears words, one space apart).
    .transform((name) => name.replace(/\s+/gu, ' ')),
  expectedChallenge: base64url(200),
  response: registrationResponse,
});

export const signSubmitInput = z.strictObject({
  token,
  nonce: base64url(200),
  figuresDigest: z.string().min(1).max(200),
  response: authenticationResponse,
});

/** A body that is not the shape: one sentence naming each field that is wrong. */
export function issues(error: z.ZodError): string {
  const each = error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  return `The page sent what the bot cannot read (${each.join('; ')}).`;
}
