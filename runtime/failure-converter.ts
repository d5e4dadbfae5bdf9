import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Temporal's failure converter with `encodeCommonAttributes`: a failure's message and stack trace travel in a payload
 * (`encodedAttributes`), which the payload codec encrypts, and history keeps only "Encoded failure" in clear. Loaded
 * by path (runtime/codec.ts), because the SDK needs it twice: in the workflow bundle, where workflow failures are
 * made, and in the worker and clients, where activity failures are made and every failure is read back. Reading
 * decodes `encodedAttributes` when present and takes the plain fields otherwise, so older histories stay readable.
 * Imports only @temporalio/common: it runs inside the workflow sandbox.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
