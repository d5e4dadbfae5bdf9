// A real local HTTP server that records every request, and response bodies that satisfy the api/ schemas.
import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BackupServiceClient, type ClientOptions } from '../../api/client';
import { closeHttpPools } from '../../api/http';
import type * as s from '../../api/schemas';

export interface RecordedRequest {
  method: string;
  /** The raw request target, path and query exactly as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body; empty when none was sent. */
  body: string;
}

export interface JsonReply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}
/** `hang` never answers; `reset` destroys the connection. */
export type Reply = JsonReply | 'hang' | 'reset';
export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

const TOKEN_PATHS = ['/v1/token', '/v1/oauth2/token'];

export function isTokenRequest(req: RecordedRequest): boolean {
  return TOKEN_PATHS.some((p) => req.path.endsWith(p));
}

export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  readonly issuedTokens: string[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  handler: Handler = () => ({ status: 404, json: { error: 'no handler' } });
  tokenHandler: Handler = () => this.issueToken();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer();

  constructor() {
    this.server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void this.onRequest(req, res);
    });
  }

  static start(): Promise<RecordingServer> {
    return new RecordingServer().listen();
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The base URL, with a path prefix by default. */
  url(prefix = '/api'): string {
    return `http://127.0.0.1:${this.port}${prefix}`;
  }

  /** Answers every non-token request with the same reply. */
  reply(status: number, json?: unknown, headers?: Record<string, string>): void {
    this.handler = () => ({ status, json, headers });
  }

  /** A token in the neutral dialect's shape, remembered in `issuedTokens`. */
  issueToken(expiresIn = 3600): JsonReply {
    const token = `tok_${this.issuedTokens.length + 1}_${randomBytes(12).toString('hex')}`;
    this.issuedTokens.push(token);
    return { status: 200, json: { access_token: token, token_type: 'Bearer', expires_in: expiresIn } };
  }

  get lastToken(): string {
    const token = this.issuedTokens[this.issuedTokens.length - 1];
    if (!token) throw new Error('no token was issued');
    return token;
  }

  /** TCP connections still open. */
  get openConnections(): number {
    return this.sockets.size;
  }

  get apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => !isTokenRequest(r));
  }

  get tokenRequests(): RecordedRequest[] {
    return this.requests.filter(isTokenRequest);
  }

  lastApi(): RecordedRequest {
    const req = this.apiRequests[this.apiRequests.length - 1];
    if (!req) throw new Error('no API request was recorded');
    return req;
  }

  /** Forgets the requests and restores the default handlers (issued tokens stay valid). */
  clear(): void {
    this.requests.length = 0;
    this.handler = () => ({ status: 404, json: { error: 'no handler' } });
    this.tokenHandler = () => this.issueToken();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url,
      path: q < 0 ? url : url.slice(0, q),
      query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(recorded);
    let reply: Reply;
    try {
      reply = await (isTokenRequest(recorded) ? this.tokenHandler : this.handler)(recorded);
    } catch (err) {
      reply = { status: 599, json: { error: `test handler failed: ${String(err)}` } };
    }
    if (reply === 'hang') return;
    if (reply === 'reset') {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { ...reply.headers };
    let body = '';
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      headers['content-type'] ??= 'application/json';
    } else if (reply.text !== undefined) {
      body = reply.text;
      headers['content-type'] ??= 'text/plain';
    }
    res.writeHead(reply.status, headers);
    res.end(body);
  }
}

/**
 * The suite's server: listening before its tests, emptied before each, closed after them with the client's HTTP pools.
 */
export function recordingServerForSuite(): RecordingServer {
  const server = new RecordingServer();
  beforeAll(() => server.listen());
  beforeEach(() => server.clear());
  afterAll(async () => {
    await closeHttpPools();
    await server.close();
  });
  return server;
}

/** A recording server for the suite, and the client on it (made once the server listens). */
export function clientForSuite(): { server: RecordingServer; client: () => BackupServiceClient } {
  const server = recordingServerForSuite();
  let client: BackupServiceClient | undefined;
  beforeAll(() => {
    client = makeClient(server);
  });
  return {
    server,
    client: () => {
      if (!client) throw new Error('the suite has not started');
      return client;
    },
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The error a call fails with, whether it throws at once or rejects; fails the test when it succeeds. */
export async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export function parseJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

export const PROJECT_ID = '3f1c2a9e-1b2c-4d5e-8f90-1234567890ab';
export const CREDENTIALS = { clientId: 'client-7f3e', clientSecret: 'cs_Secret-9x7Q2mLp4Zr8Tt' };

export function makeClient(server: RecordingServer, options: Partial<ClientOptions> = {}): BackupServiceClient {
  return new BackupServiceClient({
    baseUrl: server.url(),
    projectId: PROJECT_ID,
    credentials: CREDENTIALS,
    ...options,
  });
}

// Response fixtures. Each is typed with its schema's output type, and test/api/paging-and-decoding proves that each
// one decodes.

export const NOW = '2025-03-01T12:00:00Z';

export function apiCredentials(secret = 'rotated-Secret-5d8c1e'): s.ApiCredentials {
  return { clientId: 'client-7f3e', clientSecret: secret };
}

export function permission(type = 'inventory.view'): s.Permission {
  return { permissionType: type, description: 'View the inventory', allowConditions: true };
}

export function role(id = 'role-1'): s.Role {
  return {
    id,
    name: `Role ${id}`,
    isBuiltInRole: false,
    permissionGrants: [{ permission: 'inventory.view', accessConditionId: 'ac-1' }, { permission: 'jobs.view' }],
    accessConditions: [{ id: 'ac-1', effect: 'INCLUSIVE', expression: 'resource.environment == "PROD"' }],
  };
}

export function idp(id = 'idp-1'): s.IdentityProvider {
  return { id, providerName: `Provider ${id}` };
}

export function idpGroup(id = 'group-1'): s.IdpGroup {
  return { id, idpId: 'idp-1', providerGroupId: 'pg-42', roleIds: ['role-1', 'role-2'], displayName: 'Ops' };
}

export function mpaRequest(id = 'req-1', status = 'CREATED'): s.MpaRequest {
  return {
    id,
    operation: 'MPA_OPERATION_RESTORE_RESOURCE',
    requesterEmail: 'sre@example.com',
    status,
    policyDetails: [
      {
        requiredApprovals: 2,
        currentApprovals: 0,
        executionWindowHours: 24,
        approvalWindowHours: 48,
        description: 'Two approvers for restores',
        approverIdpId: null,
        approverProviderGroupId: null,
      },
    ],
    createdTime: NOW,
    requesterName: 'SRE bot',
    comment: 'drill',
  };
}

export function mpaReview(id = 'rev-1'): s.MpaReview {
  return { id, reviewerEmail: 'boss@example.com', decision: 'APPROVED', reviewedTime: NOW, comment: 'ok' };
}

export function sourceAccount(id = 'acc-1', status = 'CONNECTED'): s.SourceAccount {
  return {
    id,
    providerAccountId: '123456789012',
    name: `Account ${id}`,
    status,
    sourceAccountAttributes: { cloudProvider: 'PROVIDER_A', providerA: { roleArn: 'role/backup' } },
    connectedTime: NOW,
  };
}

export function restoreAccount(id = 'ra-1'): s.RestoreAccount {
  return {
    id,
    providerAccountId: '210987654321',
    name: `Restore ${id}`,
    status: 'CONNECTED',
    restoreAccountAttributes: { cloudProvider: 'PROVIDER_A' },
    isRestoreAllowed: true,
  };
}

export function vault(id = 'vault-1'): s.Vault {
  return {
    id,
    vaultAccountId: 'va-1',
    providerAccountId: '111122223333',
    name: `Vault ${id}`,
    region: 'region-1',
    isManagedByEon: true,
    vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'key/abc' } },
  };
}

export function resource(id = 'res-1'): s.InventoryResourceDocument {
  return {
    id,
    backupStatus: 'PROTECTED',
    providerResourceId: `table/${id}`,
    resourceName: `orders-${id}`,
    providerAccountId: '123456789012',
    snapshotStorage: { sizeBytes: 2048, eonSnapshotCount: 3, nonEonSnapshotCount: 1 },
    sourceStorage: { sizeBytes: 1024 },
    tags: { env: 'prod', owner: '' },
    cloudProvider: 'PROVIDER_A',
    resourceType: 'PA_KEYVALUE_DB',
    region: 'region-1',
    createdTime: NOW,
    latestSnapshotTime: NOW,
    classifications: {
      environmentDetails: { environment: 'PROD', isOverridden: false },
      appsDetails: { apps: [{ name: 'shop', paths: ['/srv'] }], isOverridden: true },
    },
    controlViolationCounts: { high: 0, medium: 1, low: 2, muted: 0 },
    resourceProperties: {
      kvDbA: {
        billingMode: 'PROVISIONED',
        readCapacityUnits: 5,
        writeCapacityUnits: 5,
        globalSecondaryIndexes: [
          {
            indexName: 'by-customer',
            keySchema: [{ name: 'customerId', type: 'HASH' }],
            projection: { projectionType: 'ALL' },
            provisionedThroughput: { readCapacityUnits: 1, writeCapacityUnits: null },
            indexSizeBytes: null,
          },
        ],
      },
    },
  };
}

export function snapshot(id = 'snap-1'): s.Snapshot {
  return { id, createdTime: NOW, resourceId: 'res-1', pointInTime: NOW, vaultId: 'vault-1', jobId: 'job-1' };
}

export function backupJob(id = 'job-1', status = 'JOB_COMPLETED'): s.BackupJob {
  return {
    jobExecutionDetails: { jobId: id, status, createdTime: NOW, durationSeconds: 12 },
    backupType: 'ON_DEMAND',
    snapshotDetails: { pointInTime: NOW, id: 'snap-1' },
  };
}

export function restoreJob(id = 'job-2', status = 'JOB_RUNNING'): s.RestoreJob {
  return {
    jobExecutionDetails: { jobId: id, status, createdTime: NOW },
    restoreType: 'BUCKET',
    destinationDetails: {
      restoreAccountId: 'ra-1',
      providerAccountId: '210987654321',
      cloudProvider: 'PROVIDER_A',
      region: 'region-1',
    },
  };
}

export function queryResults(nextToken: string | null = null): s.QueryResults {
  return {
    columns: ['id', 'name'],
    records: [
      ['1', 'a'],
      ['2', 'b'],
    ],
    nextToken,
  };
}

export function costRecord(resourceId = 'res-1'): s.CostDataRecord {
  return {
    recordTimeFrame: { startTime: '2025-02-01T00:00:00Z', endTime: '2025-03-01T00:00:00Z' },
    costs: [
      {
        meteringDimension: 'PA_KEYVALUE_DB_METERING_DIMENSION',
        cost: { amount: 12.5, unit: 'CREDITS' },
        usage: { amount: 1024, unit: 'BYTE_MONTHS' },
      },
    ],
    resourceCount: 1,
    dimensions: { resourceId, cloudProvider: 'PROVIDER_A', resourceType: 'PA_KEYVALUE_DB' },
  };
}

/** A cost request over one full day. */
export function costInput(): s.CostDataInput {
  return {
    timeFrame: { startTime: '2025-02-01T00:00:00Z', endTime: '2025-02-02T00:00:00Z' },
    granularity: 'DAILY',
    groupBy: 'RESOURCE',
    topN: 5,
    filters: { resourceType: { in: ['PA_KEYVALUE_DB'] }, tagKeyValues: { containsAnyOf: ['env=prod'] } },
  };
}

/** Every response fixture above under one name (`bodies.vault()`): a suite over many kinds imports one, not a list. */
export const bodies = {
  apiCredentials,
  backupJob,
  costInput,
  costRecord,
  idp,
  idpGroup,
  mpaRequest,
  mpaReview,
  permission,
  queryResults,
  resource,
  restoreAccount,
  restoreJob,
  role,
  snapshot,
  sourceAccount,
  vault,
};
