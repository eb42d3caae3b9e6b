// Decimal-exact Naira amounts: held as integer kobo (bigint), never as floats.

const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;
const KOBO_PER_NAIRA = 100n;

/** What a person is told when an amount they typed cannot be read. */
export const AMOUNT_HINT = 'enter a number with at most 2 decimals, e.g. 1500.50';

/**
 * The most integer digits an amount from outside may have: ₦999 trillion is far beyond any balance the
 * service holds, while anything longer is a fault or a probe, not money.
 */
export const AMOUNT_MAX_INTEGER_DIGITS = 15;
const PLAIN_AMOUNT = new RegExp(`^\\d{1,${AMOUNT_MAX_INTEGER_DIGITS}}(?:\\.\\d{1,2})?$`);

/**
 * Whether text from outside is an amount as the service writes one: digits, at most two places, not
 * negative, no exponent, separators or spaces, and at most AMOUNT_MAX_INTEGER_DIGITS before the point.
 */
export function isPlainAmount(text: string): boolean {
  return PLAIN_AMOUNT.test(text);
}

export class MoneyFormatError extends Error {
  override name = 'MoneyFormatError';
  readonly code = 'money_format' as const;

  /** @param reason the words for the person who typed it (the message is for logs). */
  constructor(
    message: string,
    readonly reason = AMOUNT_HINT,
  ) {
    super(message);
  }
}

/** The reason to show a person for an amount that could not be read (or sent exactly). */
export function amountReason(error: unknown): string {
  return error instanceof MoneyFormatError ? error.reason : AMOUNT_HINT;
}

/**
 * Commas as thousands separators: one to three digits not starting with 0, then groups of exactly three
 * (`0,500` is a decimal comma elsewhere, ₦0.50, not ₦500: refused).
 */
const GROUPED = /^-?[1-9]\d{0,2}(?:,\d{3})+$/;

export class Money {
  private constructor(readonly kobo: bigint) {}

  static fromKobo(kobo: bigint): Money {
    return new Money(kobo);
  }

  static zero(): Money {
    return new Money(0n);
  }

  /**
   * Parse what a person typed: `1500`, `1,500.5`, `₦1,500.50`. At most 2 decimals; commas only
   * between groups of three digits of the whole part, so `1,0000` and `1,00,0` are refused rather
   * than read as some other amount.
   */
  static parse(input: string): Money {
    const cleaned = input
      .trim()
      .replace(/^₦/, '')
      .replace(/^NGN\s*/i, '')
      .trim();
    const [whole = '', ...fraction] = cleaned.split('.');
    if (whole.includes(',') && !GROUPED.test(whole)) {
      throw new MoneyFormatError(
        `"${cleaned}" has commas that do not separate thousands`,
        'commas go between groups of three digits, e.g. 10,000 or 1,500.50',
      );
    }
    return Money.parseDecimal([whole.replace(/,/g, ''), ...fraction].join('.'));
  }

  /** Parse a canonical decimal string such as the service returns (`"150000.00"`, `"5000"`). */
  static parseDecimal(decimal: string): Money {
    const match = DECIMAL.exec(decimal);
    if (!match) {
      throw new MoneyFormatError(`"${decimal}" is not an amount with at most 2 decimals`);
    }
    const [, sign, whole = '0', fraction = ''] = match;
    const kobo = BigInt(whole) * KOBO_PER_NAIRA + BigInt(fraction.padEnd(2, '0'));
    return new Money(sign ? -kobo : kobo);
  }

  /**
   * Accept a service amount that may be a decimal string or a JSON number. Numbers are read through
   * their shortest decimal text, which is exact for every amount of at most 2 decimals.
   */
  static fromService(value: string | number): Money {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new MoneyFormatError(`${value} is not an amount`);
      return Money.parseDecimal(numberToPlainDecimal(value));
    }
    return Money.parseDecimal(value.trim());
  }

  /** Canonical text with two decimals: `1500.50`. */
  toString(): string {
    const negative = this.kobo < 0n;
    const abs = negative ? -this.kobo : this.kobo;
    const whole = abs / KOBO_PER_NAIRA;
    const fraction = (abs % KOBO_PER_NAIRA).toString().padStart(2, '0');
    return `${negative ? '-' : ''}${whole}.${fraction}`;
  }

  /** Shortest decimal text: `1500.5`, `100`. This is what goes into JSON on the wire. */
  toPlainString(): string {
    return this.toString()
      .replace(/\.00$/, '')
      .replace(/(\.\d)0$/, '$1');
  }

  /**
   * The JSON number the service expects. JSON.stringify of the result prints exactly
   * `toPlainString()`; we check that rather than trust it.
   */
  toWireNumber(): number {
    const text = this.toPlainString();
    const value = Number(text);
    if (!Number.isSafeInteger(Number(this.kobo)) || String(value) !== text) {
      throw new MoneyFormatError(`${text} cannot be sent exactly as a JSON number`);
    }
    return value;
  }

  toJSON(): string {
    return this.toString();
  }

  plus(other: Money): Money {
    return new Money(this.kobo + other.kobo);
  }

  minus(other: Money): Money {
    return new Money(this.kobo - other.kobo);
  }

  compare(other: Money): -1 | 0 | 1 {
    return this.kobo < other.kobo ? -1 : this.kobo > other.kobo ? 1 : 0;
  }

  equals(other: Money): boolean {
    return this.kobo === other.kobo;
  }

  isPositive(): boolean {
    return this.kobo > 0n;
  }
}

function numberToPlainDecimal(value: number): string {
  const text = String(value);
  // JavaScript writes a number in exponent form only below 1e-6 or from 1e21 on: too small for kobo or
  // past what a JSON number carries exactly, refused as the same amount written out would be.
  if (/e/i.test(text)) throw new MoneyFormatError(`${text} is not an amount in kobo`);
  return text;
}
