import { webhookTargetsOf, type WebhookTarget } from '../webhooks';
import { mdCode, ConfigError, type Env, type SettingDoc } from './env';

/** Notification webhooks: runtime/webhooks.ts validates their variables, this turns its issues into a ConfigError. */

/** RUNBOOKS_WEBHOOK_* or RUNBOOKS_WEBHOOKS_FILE; none: an empty list. */
export function loadWebhookTargets(env: Env = process.env, read?: (path: string) => string): WebhookTarget[] {
  const { targets, issues } = webhookTargetsOf(env, read);
  if (issues.length > 0) throw new ConfigError(issues);
  return targets;
}

/** docs/configuration.md, "Notifications". */
export const NOTIFICATION_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_WEBHOOK_URL',
    default: 'unset: none',
    meaning:
      'A webhook for `approval.pending`, `approval.decided`, `drill.passed`, `drill.failed`, `export.done`, ' +
      '`runbook.failed`',
  },
  {
    name: 'RUNBOOKS_WEBHOOK_SECRET',
    default: 'none',
    meaning: 'The key of the `X-Runbooks-Signature` HMAC (16 characters or more); required for `json`',
  },
  {
    name: 'RUNBOOKS_WEBHOOK_FORMAT',
    default: mdCode('json'),
    meaning: '`json` (signed) or `slack` (an incoming-webhook URL, which is the secret)',
  },
  { name: 'RUNBOOKS_WEBHOOK_EVENTS', default: 'all', meaning: 'A comma list of the events to send' },
  {
    name: 'RUNBOOKS_WEBHOOKS_FILE',
    default: 'none',
    meaning:
      'Several targets: a JSON list of `{"name", "url", "format", "secret", "events"}` (mode 0600); not with the above',
  },
];
