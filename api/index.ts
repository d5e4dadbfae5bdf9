export * from './enums';
export * from './schemas';
export * from './errors';
export { redact, registerSecret, REDACTED } from './redact';
export { HttpTransport, closeHttpPools, pathOf, DEFAULT_TIMEOUT_MS, type HttpOptions } from './http';
export {
  TokenProvider,
  requestToken,
  rotateWithToken,
  type Credentials,
  type CredentialsSource,
  type TokenEndpoint,
} from './auth';
export { pages, itemsOf, collect } from './paging';
export { describeIssue } from './validate';
export { BackupServiceClient, type ClientOptions, type ProtectedCallResult, type ListOptions } from './client';
