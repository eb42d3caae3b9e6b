// A tiny independent client that knows only the wire protocol (AES-256-CBC bodies, NaCl-box data),
// so the sandbox is tested without the project's service client.
import {
  curveSecretFromSeed,
  openResponseData,
  parseOpenSshPrivateKey,
  sealRequestBody,
} from '../../src/cngn/wire.js';

export interface RawAnswer<T = unknown> {
  httpStatus: number;
  /** The envelope as received (data still sealed). */
  envelope: { status?: number | boolean; message?: string; data?: unknown };
  /** `data` opened with the business's private key, when present. */
  data: T;
}

export interface RawCallOptions {
  /** Override the Authorization header; null sends none. */
  authorization?: string | null;
  /** Send this text as the body instead of sealing `body`. */
  rawBody?: string;
  /** Seal with this encryption key instead of the right one. */
  encryptionKey?: string;
}

export class RawClient {
  private readonly curveSecret: Uint8Array;

  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
    readonly encryptionKey: string,
    privateKeyText: string,
  ) {
    this.curveSecret = curveSecretFromSeed(parseOpenSshPrivateKey(privateKeyText).seed);
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: RawCallOptions = {},
  ): Promise<RawAnswer<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const authorization =
      options.authorization === undefined ? `Bearer ${this.apiKey}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let payload: string | undefined = options.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(
        sealRequestBody(JSON.stringify(body), options.encryptionKey ?? this.encryptionKey),
      );
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await response.text();
    const envelope = JSON.parse(text) as RawAnswer['envelope'];
    const data =
      typeof envelope.data === 'string'
        ? JSON.parse(openResponseData(envelope.data, this.curveSecret))
        : envelope.data;
    return { httpStatus: response.status, envelope, data: data as T };
  }

  get<T = unknown>(path: string, options?: RawCallOptions) {
    return this.call<T>('GET', path, undefined, options);
  }

  post<T = unknown>(path: string, body: unknown, options?: RawCallOptions) {
    return this.call<T>('POST', path, body, options);
  }
}
