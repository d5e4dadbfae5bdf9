import { z } from 'zod';
import { dayOf, defineRunbook } from '../../contracts/runbook';

export const RotateCredentialsInput = z.undefined({ error: 'rotateCredentials takes no input' });

export const rotateCredentialsContract = defineRunbook({
  workflowType: 'rotateCredentials',
  input: RotateCredentialsInput,
  takesInput: false,
  defaultId: (_input, { now }) => `rotate-credentials-${dayOf(now)}`,
});
