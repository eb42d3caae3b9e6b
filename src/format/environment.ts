/** `sandbox` is the embedded fake; `test`/`live` come from the API key prefix. */
export type CngnEnvironment = 'sandbox' | 'test' | 'live';
