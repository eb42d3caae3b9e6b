// The stable codes of the Slack surface's own errors: a caller switches on `error.code`, never on a
// class name or a message.

export const SlackErrorCode = {
  UploadRefused: 'slack_upload_refused',
  CheckFailed: 'slack_check_failed',
  ResponseUrlFailed: 'slack_response_url_failed',
  StaleRound: 'slack_stale_round',
  ReportRunLeft: 'slack_report_run_left',
} as const;
export type SlackErrorCode = (typeof SlackErrorCode)[keyof typeof SlackErrorCode];
