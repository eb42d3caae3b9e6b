// Generators for realistic identifiers: account holder names, references, hashes, addresses.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

const FIRST_NAMES = [
  'ADEBAYO',
  'CHIOMA',
  'IBRAHIM',
  'NGOZI',
  'OLUWASEUN',
  'AISHA',
  'EMEKA',
  'FUNMILAYO',
  'MUSA',
  'TEMITOPE',
  'CHINEDU',
  'HADIZA',
  'BABATUNDE',
  'AMARACHI',
  'YUSUF',
  'FOLASADE',
  'OBINNA',
  'ZAINAB',
  'TUNDE',
  'IFEOMA',
  'SANI',
  'KEHINDE',
  'UCHENNA',
  'HALIMA',
  'SEGUN',
  'NNEKA',
  'ABUBAKAR',
  'YETUNDE',
  'IKECHUKWU',
  'BOLANLE',
];

const MIDDLE_NAMES = [
  'OLUWAFEMI',
  'CHUKWUEMEKA',
  'ADEOLA',
  'NKECHI',
  'ABDULLAHI',
  'OLUWATOYIN',
  'CHIDI',
  'BUSAYO',
  'AMINU',
  'ONYEKACHI',
  'MODUPE',
  'GARBA',
  'EBERE',
  'ADEWALE',
  'KELECHI',
];

const SURNAMES = [
  'OKONKWO',
  'ADEYEMI',
  'BELLO',
  'EZE',
  'OGUNLEYE',
  'MOHAMMED',
  'NWOSU',
  'ADEBANJO',
  'ABUBAKAR',
  'OKAFOR',
  'BALOGUN',
  'DANJUMA',
  'OKEKE',
  'ADESANYA',
  'USMAN',
  'IWEALA',
  'OLADIPO',
  'SULE',
  'NWANKWO',
  'AKINTOLA',
  'OBI',
  'LAWAL',
  'EKWUEME',
  'ODUYA',
  'YAKUBU',
];

function pick<T>(list: readonly T[], index: number): T {
  return list[index % list.length] as T;
}

/** The name a bank would return for an account: deterministic per bank + account number. */
export function accountHolderName(bankCode: string, accountNumber: string): string {
  const digest = createHash('sha256').update(`${bankCode}:${accountNumber}`).digest();
  const first = pick(FIRST_NAMES, digest.readUInt16BE(0));
  const surname = pick(SURNAMES, digest.readUInt16BE(2));
  // About a third of bank records carry a middle name.
  const middle = (digest[4] ?? 0) % 3 === 0 ? ` ${pick(MIDDLE_NAMES, digest.readUInt16BE(5))}` : '';
  return `${surname} ${first}${middle}`;
}

/** A transaction reference such as `CNGN-WD-8F3A1C9B2E7D4A60`. */
export function newReference(kind: string): string {
  return `CNGN-${kind}-${randomBytes(8).toString('hex').toUpperCase()}`;
}

export function newId(): string {
  return randomUUID();
}

export function newTxHash(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

export function newEvmAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

export function newAccountNumber(): string {
  // Temporary NUBANs; never start with 0 so they look like issued numbers.
  return `${1 + ((randomBytes(1)[0] ?? 0) % 9)}${Array.from(randomBytes(9), (b) => b % 10).join('')}`;
}

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('hex');
}
