export * from './enums';
export * from './schemas';
export * from './errors';
export { redact, registerSecret, REDACTED } from './redact';
export { HttpTransport, closeHttpPools, endpointOf, type CallRecord, type HttpCall, type HttpResponse } from './http';
export { requestToken, rotateWithToken, type Credentials, type CredentialsSource, type TokenEndpoint } from './auth';
export { collect } from './paging';
export { describeIssue } from './validate';
export { BackupServiceClient, type ClientOptions } from './client';
