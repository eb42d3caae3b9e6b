// The configuration tests' shared set-up: a minimal environment with Slack and approvals, and the
// problems loadConfig reports for an environment (none when it loads).
import { ConfigError, loadConfig } from '../../src/config.js';

export const SLACK_ENV = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'shh',
  CNGN_APPROVALS_CHANNEL: 'C0APPROVALS',
  CNGN_APPROVERS: 'U0AAA, U0BBB',
};

export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
