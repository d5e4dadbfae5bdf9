import { z } from 'zod';
import { dayOf, defineRunbook } from '../../contracts/runbook';

export const RotateCredentialsInput = z.undefined({ error: 'rotateCredentials takes no input' });

export const rotateCredentialsContract = defineRunbook({
  workflowType: 'rotateCredentials',
  input: RotateCredentialsInput,
  takesInput: false,
  defaultId: (_input, { now }) => `rotate-credentials-${dayOf(now)}`,
  phases: ['rotating'],
  // Two rotations at once would race for one credential; a rotation missed by an outage is still due a day later.
  schedule: { overlap: 'skip', catchupWindow: '1d', jitter: '0s' },
  permissions: [{ permission: 'api_credentials.rotate_secret', for: 'rotate the current secret' }],
});
